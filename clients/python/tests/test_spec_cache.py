"""The rejection-cache cases every client shares (clients/spec/cache.json): what is kept, how
a kept rejection ages, sweeping and size, on a clock the test sets. The Node client's tests
read the same file (clients/node/test/spec-cache.test.mjs)."""

import pytest
import redis

import winlimit
from winlimit._cache import RejectionCache, lookup, remember

from shared_spec import build, ids, load

SPEC = load("cache.json")


class Clock:
    """The time the test says it is, in ms."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def fields(decision):
    return [int(decision.allowed), decision.limit, decision.remaining, decision.retry_after_ms, decision.reset_after_ms]


@pytest.mark.parametrize("case", SPEC["cases"], ids=ids(SPEC["cases"]))
def test_the_cache_follows_the_shared_case(case):
    clock = Clock()
    cache = RejectionCache(case["size"], clock)
    for step in case["steps"]:
        clock.now = step["at_ms"]
        call = build({**SPEC["call"], "options": {"peek": step.get("peek", False)}}, key=step["key"])
        if "reply" in step:
            remember(cache, call, winlimit.Decision.from_reply(step["reply"], call.policies))
            continue
        answer = lookup(cache, call)
        assert (None if answer is None else fields(answer)) == step["answer"], step
        assert answer is None or (answer.cached and answer.policies == call.policies)
    assert len(cache) == case["held"]


@pytest.mark.parametrize("size", SPEC["bad_sizes"])
def test_a_size_that_is_not_a_positive_int_is_refused(size):
    with pytest.raises((TypeError, ValueError)):
        winlimit.Limiter(redis.Redis(host="127.0.0.1", port=1), cache_rejections=True, cache_size=size)
