"""The header styles every client shares (clients/spec/header_styles.json): the fields each
style gives for a decision, how two middlewares' fields combine, and, on real servers (the
ASGI middleware and the FastAPI dependency under uvicorn, the WSGI middleware around Flask)
with a real httpx client over a real redis-server, each style sending exactly its fields and
two stacked middlewares listing both policies. The Node client's tests read the same file
(spec-header-styles.test.mjs)."""

import math
import time

import flask
import pytest
import redis

import test_asgi
import test_wsgi
import winlimit
from apps import FRAMEWORKS, served
from winlimit import asgi, wsgi
from winlimit._styles import FIELDS, fields, merged

from shared_spec import build, ids, load

SPEC = load("header_styles.json")
STYLES = {"draft-11": "draft-11", "draft-7": "draft-7", "legacy": "legacy", "null": None}
W = 60_000
TRIES = 20


def decision_of(spec_call):
    call = build(spec_call["call"])
    return winlimit.Decision.from_reply(spec_call["reply"], call.policies)


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("case", SPEC["cases"], ids=ids(SPEC["cases"]))
def test_a_decision_gives_the_fields_of_its_style(case, style):
    assert fields(decision_of(case), STYLES[style], case["now_ms"]) == case["fields"][style]


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("case", SPEC["stacked"], ids=ids(SPEC["stacked"]))
def test_two_middlewares_fields_combine_as_the_style_says(case, style):
    on = fields(decision_of(case["on"]), STYLES[style], case["now_ms"])
    added = fields(decision_of(case["added"]), STYLES[style], case["now_ms"])
    assert merged(on, added, STYLES[style]) == case["fields"][style]


@pytest.mark.parametrize("style", SPEC["bad_styles"])
@pytest.mark.parametrize("make", [
    lambda style: asgi.RateLimitMiddleware(test_asgi.hello, test_asgi.limiter_on(1), lambda lim, k: None, headers=style),
    lambda style: asgi.RateLimit(test_asgi.limiter_on(1), lambda lim, k: None, headers=style),
    lambda style: wsgi.RateLimitMiddleware(flask.Flask("x").wsgi_app, test_wsgi.limiter_on(1), lambda lim, k: None,
                                           headers=style),
], ids=["asgi", "fastapi", "wsgi"])
def test_a_style_not_in_the_spec_is_refused(make, style):
    with pytest.raises(ValueError, match="headers must be one of"):
        make(style)


def twice_a_minute(name):
    return lambda lim, key: lim.fixed(key, W, 2, name=name)


def rate_limit_fields(response):
    return {name: response.headers[name] for name in FIELDS if name in response.headers}


def requests(framework, port, layers, count):
    """`count` GETs on an app limited by `layers` ((check, options) each), with the wall clock
    in ms just before and after each. A field's reset is whole seconds rounded up, so a run
    that spans a second or more (a loaded machine) shows one less: it is run again, on an
    empty Redis, until one fits in a second."""
    for _ in range(TRIES):
        with redis.Redis(host="127.0.0.1", port=port) as fresh:
            fresh.flushall()
        out = []
        with served(framework, port, layers=layers) as http:
            for _ in range(count):
                before = time.time() * 1000
                response = http.get("/")
                out.append((before, response, time.time() * 1000))
        if out[-1][2] - out[0][0] < 1000:
            return out
    raise AssertionError(f"no run of {count} requests took under a second in {TRIES} tries")


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_draft_7_sends_its_two_fields(framework, server, r):
    sent = requests(framework, server.port, [(twice_a_minute("winlimit"), {"headers": "draft-7"})], 3)
    assert [rate_limit_fields(response) for _, response, _ in sent] == [
        {"RateLimit-Policy": "2;w=60", "RateLimit": "limit=2, remaining=1, reset=60"},
        {"RateLimit-Policy": "2;w=60", "RateLimit": "limit=2, remaining=0, reset=60"},
        {"RateLimit-Policy": "2;w=60", "RateLimit": "limit=2, remaining=0, reset=60", "Retry-After": "60"},
    ]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_legacy_sends_x_ratelimit_with_the_reset_in_unix_seconds(framework, server, r):
    sent = requests(framework, server.port, [(twice_a_minute("winlimit"), {"headers": "legacy"})], 3)
    (before, first, after), _, (_, rejected, _) = sent
    # The first call opens the window: it resets a minute after the response was made.
    reset = int(first.headers["X-RateLimit-Reset"])
    assert math.ceil((before + W) / 1000) <= reset <= math.ceil((after + W) / 1000)
    assert rate_limit_fields(first) == {"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "1",
                                        "X-RateLimit-Reset": str(reset)}
    assert rejected.status_code == 429
    assert {k: v for k, v in rate_limit_fields(rejected).items() if k != "X-RateLimit-Reset"} == {
        "X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "0", "Retry-After": "60"}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_none_sends_no_fields_but_retry_after_on_a_429(framework, server, r):
    sent = requests(framework, server.port, [(twice_a_minute("winlimit"), {"headers": None})], 3)
    assert [(response.status_code, rate_limit_fields(response)) for _, response, _ in sent] == [
        (200, {}), (200, {}), (429, {"Retry-After": "60"})]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_two_stacked_middlewares_list_both_policies_under_draft_11(framework, server, r):
    layers = [(lambda lim, key: lim.fixed(key, W, 100, name="per-minute"), {"prefix": "minute:"}),
              (lambda lim, key: lim.slide(key, 1000, 5, name="per-second"), {"prefix": "second:"})]
    [(_, response, _)] = requests(framework, server.port, layers, 1)
    policies = response.headers["RateLimit-Policy"].split(", ")
    states = response.headers["RateLimit"].split(", ")
    assert sorted(policies) == ['"per-minute";q=100;w=60', '"per-second";q=5;w=1']
    assert sorted(states) == ['"per-minute";r=99;t=60', '"per-second";r=4;t=1']


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_two_stacked_middlewares_show_the_least_remaining_under_draft_7(framework, server, r):
    layers = [(lambda lim, key: lim.fixed(key, W, 100, name="per-minute"), {"prefix": "minute:", "headers": "draft-7"}),
              (lambda lim, key: lim.slide(key, 1000, 5, name="per-second"), {"prefix": "second:", "headers": "draft-7"})]
    [(_, response, _)] = requests(framework, server.port, layers, 1)
    assert rate_limit_fields(response) == {"RateLimit-Policy": "5;w=1", "RateLimit": "limit=5, remaining=4, reset=1"}


def test_a_rejection_by_the_second_stacked_fastapi_dependency_carries_both_policies(server, r):
    # The first dependency accepted the request and its fields are decided; the second rejects.
    layers = [(lambda lim, key: lim.fixed(key, W, 100, name="per-minute"), {"prefix": "minute:"}),
              (lambda lim, key: lim.fixed(key, W, 1, name="burst"), {"prefix": "burst:"})]
    _, (_, rejected, _) = requests("fastapi", server.port, layers, 2)
    assert rejected.status_code == 429
    assert rate_limit_fields(rejected) == {
        "RateLimit-Policy": '"per-minute";q=100;w=60, "burst";q=1;w=60',
        "RateLimit": '"per-minute";r=98;t=60, "burst";r=0;t=60',
        "Retry-After": "60",
    }
