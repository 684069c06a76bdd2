"""The breaker cases every client shares (clients/spec/breaker.json): when it opens, the one
probe, the open period doubling and starting again, which errors count, a disabled breaker;
on a clock the test sets, with no server. The Node client reads the same file."""

import pytest
import redis
from redis._parsers import BaseParser

import redis.asyncio

import winlimit
import winlimit.asyncio
from winlimit._breaker import OPEN, PROBE, REFUSE, SEND, Breaker, BreakerOptions
from winlimit._failures import counts, kind

from shared_spec import ids, load

SPEC = load("breaker.json")


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def outcome_error(outcome):
    """An exception of the kind the case names, as the Redis client raises it."""
    if outcome == "connection":
        return redis.ConnectionError("Connection refused")
    if outcome == "timeout":
        return redis.TimeoutError("Timeout reading from socket")
    text = next(e["reply"] for e in SPEC["error_replies"] if e["kind"] == outcome)
    return BaseParser.parse_error(text)


ACTIONS = {SEND: "send", PROBE: "probe"}


def run_step(breaker, step, tickets, fallback):
    if "call" in step:
        action, ticket = breaker.admit()
        tickets[step["call"]] = ticket
        shown = ACTIONS.get(action) or ("fallback" if fallback else "fail_fast")
        assert action in (SEND, PROBE, REFUSE)
        assert shown == step["action"], step
    else:
        failed = step["outcome"] != "ok" and counts(outcome_error(step["outcome"]))
        breaker.done(tickets[step["done"]], outcome_error(step["outcome"]) if failed else None)


@pytest.mark.parametrize("case", SPEC["cases"], ids=ids(SPEC["cases"]))
def test_the_breaker_follows_the_shared_case(case):
    clock = Clock()
    breaker = Breaker(BreakerOptions(**case["options"]), "test", clock)  # the defaults are the options' own
    heard = []
    breaker.listeners.append(lambda _b, to, cause: heard.append([to, cause]))
    tickets = {}
    for step in case["steps"]:
        clock.now = step["at_ms"]
        heard.clear()
        run_step(breaker, step, tickets, case["fallback"])
        assert breaker.state == step["state"], step
        assert heard == step.get("transitions", []), step
        if breaker.state == OPEN:
            assert breaker.open_until_ms == step["open_until_ms"], step
        else:
            assert "open_until_ms" not in step, step


@pytest.mark.parametrize("error", SPEC["error_replies"], ids=[e["reply"][:30] for e in SPEC["error_replies"]])
def test_a_server_error_counts_as_the_shared_table_says(error):
    raised = BaseParser.parse_error(error["reply"])
    assert kind(raised) == error["kind"]
    assert counts(raised) is error["counts"]


@pytest.mark.parametrize("outcome", ["connection", "timeout"])
def test_connection_errors_and_timeouts_count(outcome):
    assert outcome in SPEC["counted_kinds"]
    assert counts(outcome_error(outcome))


def test_the_counted_kinds_are_the_counted_replies_and_the_two_transport_failures():
    replies = {e["kind"] for e in SPEC["error_replies"] if e["counts"]}
    assert set(SPEC["counted_kinds"]) == replies | {"connection", "timeout"}


@pytest.mark.parametrize("options", SPEC["bad_options"], ids=[repr(o) for o in SPEC["bad_options"]])
def test_bad_breaker_options_are_refused_naming_the_option(options):
    named = "|".join(options)
    with pytest.raises((TypeError, ValueError), match=named):
        winlimit.Limiter(redis.Redis(host="127.0.0.1", port=1), **options)
    with pytest.raises((TypeError, ValueError), match=named):
        winlimit.asyncio.Limiter(redis.asyncio.Redis(host="127.0.0.1", port=1), **options)


def test_the_defaults_are_the_shared_ones():
    options = BreakerOptions()
    assert {"breaker": options.enabled, "failures": options.failures, "open_ms": options.open_ms,
            "max_open_ms": options.max_open_ms} == SPEC["defaults"]
