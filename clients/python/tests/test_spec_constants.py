"""The texts and defaults every client shares (clients/spec/constants.json), checked against
the Python client's own."""

import inspect

import pytest
import redis

import winlimit
import winlimit.asgi
import winlimit.asyncio
import winlimit.wsgi
from winlimit import _cache, _commands, _shadow
from winlimit._options import MiddlewareOptions

from shared_spec import CONSTANTS

DEFAULTS = CONSTANTS["defaults"]
NOT_LOADED = CONSTANTS["module_not_loaded"]


def default(function, parameter):
    return inspect.signature(function).parameters[parameter].default


@pytest.mark.parametrize("window_ms, label", CONSTANTS["window_labels"])
def test_a_window_is_labelled_as_the_spec_says(window_ms, label):
    assert _commands.window_label(window_ms) == label


@pytest.mark.parametrize("server_text", NOT_LOADED["server_texts"])
def test_module_not_loaded_adds_the_spec_text_to_the_servers(server_text):
    error = _commands.translate(redis.ResponseError(server_text))
    assert isinstance(error, winlimit.ModuleNotLoaded)
    assert str(error) == server_text + NOT_LOADED["separator"] + NOT_LOADED["fix"]


def test_a_server_without_the_module_gets_the_spec_text(start_server, make_limiter):
    bare = start_server(module=False)
    with pytest.raises(winlimit.ModuleNotLoaded) as e:
        make_limiter(port=bare.port, backend="module").gcra("k", 60_000, 3)
    server_text, fix = str(e.value).split(NOT_LOADED["separator"])
    assert "unknown command" in server_text.lower() and fix == NOT_LOADED["fix"]


@pytest.mark.parametrize("limiter_class", [winlimit.Limiter, winlimit.asyncio.Limiter], ids=["sync", "asyncio"])
def test_the_limiters_defaults_are_the_specs(limiter_class):
    assert default(limiter_class, "name") == DEFAULTS["name"]
    assert default(limiter_class, "cache_size") == DEFAULTS["cache_size"] == _cache.DEFAULT_SIZE


def test_the_middlewares_defaults_are_the_specs():
    options = MiddlewareOptions(check=lambda limiter, key: None)
    assert options.prefix == DEFAULTS["prefix"]
    assert options.fail_open is DEFAULTS["fail_open"]
    assert options.shadow is DEFAULTS["shadow"]
    assert options.timeout * 1000 == DEFAULTS["timeout_ms"]


@pytest.mark.parametrize("guarded", [winlimit.asgi.RateLimitMiddleware, winlimit.asgi.RateLimit,
                                     winlimit.wsgi.RateLimitMiddleware], ids=["asgi", "fastapi", "wsgi"])
def test_every_middleware_takes_its_options_as_one_value(guarded):
    assert inspect.signature(guarded).parameters["options"].default is None
    assert guarded is not None and winlimit.asgi.MiddlewareOptions is winlimit.wsgi.MiddlewareOptions


def test_the_shadow_log_remembers_as_many_keys_as_the_spec_says():
    assert _shadow.SHADOW_LOG_KEYS == DEFAULTS["shadow_log_keys"]
