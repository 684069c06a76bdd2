"""The middlewares' options as one value (MiddlewareOptions): every middleware takes it as
`options=` or as the keyword arguments it always took, a keyword beside it wins, and a bad or
unknown option is refused when the middleware is made, not at its first request."""

import dataclasses

import flask
import pytest

import test_asgi
import test_wsgi
from winlimit import asgi, wsgi
from winlimit._options import MiddlewareOptions


def one_a_minute(limiter, key):
    return limiter.fixed(key, 60_000, 1)


MAKERS = {
    "asgi": lambda **kw: asgi.RateLimitMiddleware(test_asgi.hello, test_asgi.limiter_on(1), **kw),
    "fastapi": lambda **kw: asgi.RateLimit(test_asgi.limiter_on(1), **kw),
    "wsgi": lambda **kw: wsgi.RateLimitMiddleware(flask.Flask("x").wsgi_app, test_wsgi.limiter_on(1), **kw),
}


@pytest.mark.parametrize("make", MAKERS.values(), ids=list(MAKERS))
def test_the_options_value_reaches_the_guard_as_given(make):
    options = MiddlewareOptions(check=one_a_minute, prefix="api:", fail_open=True, timeout=0.25)
    assert make(options=options).guard.options == options


@pytest.mark.parametrize("make", MAKERS.values(), ids=list(MAKERS))
def test_keyword_arguments_make_the_same_options(make):
    made = make(check=one_a_minute, prefix="api:", shadow=True, count="failures")
    assert made.guard.options == MiddlewareOptions(check=one_a_minute, prefix="api:", shadow=True, count="failures")


@pytest.mark.parametrize("make", MAKERS.values(), ids=list(MAKERS))
def test_a_keyword_beside_the_options_value_wins(make):
    made = make(options=MiddlewareOptions(check=one_a_minute, prefix="api:"), prefix="web:")
    assert made.guard.options.prefix == "web:" and made.guard.options.check is one_a_minute


@pytest.mark.parametrize("make", MAKERS.values(), ids=list(MAKERS))
def test_an_unknown_option_is_refused_by_name(make):
    with pytest.raises(TypeError, match="unknown middleware option: prefixx"):
        make(check=one_a_minute, prefixx="api:")


@pytest.mark.parametrize("make", MAKERS.values(), ids=list(MAKERS))
def test_a_middleware_without_a_check_is_refused(make):
    with pytest.raises(TypeError, match="check"):
        make()


@pytest.mark.parametrize("bad, error", [({"timeout": 0}, ValueError), ({"count": "some"}, ValueError),
                                        ({"ipv6_subnet": 129}, ValueError), ({"headers": "draft-1"}, ValueError),
                                        ({"prefix": 1}, TypeError), ({"block_ms": "5"}, TypeError),
                                        ({"fallback": object()}, TypeError)])
def test_a_bad_option_is_refused_when_made(bad, error):
    with pytest.raises(error):
        MAKERS["asgi"](check=one_a_minute, **bad)


def test_the_options_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        MiddlewareOptions(check=one_a_minute).prefix = "x"
