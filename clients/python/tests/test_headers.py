"""Decision.headers() on decisions from a real server: the fields of
draft-ietf-httpapi-ratelimit-headers-11, parsed by a Structured Field parser (http-sf), so a
field that is not a valid List of String items with Integer parameters fails the test."""

import http_sf
import pytest

import winlimit

W = 60_000


def parse_list(field):
    """[(name, {param: value})] of an sf-list whose items are Strings (not Tokens) and
    whose parameters are Integers; anything else fails."""
    items = http_sf.parse(field.encode("ascii"), tltype="list")
    for name, params in items:
        assert type(name) is str, f"item {name!r} of {field!r} is not an sf-string"
        for key, value in params.items():
            assert type(value) is int, f"parameter {key}={value!r} of {field!r} is not an sf-integer"
    return [(name, dict(params)) for name, params in items]


def seconds(ms):
    return -(-ms // 1000)


def test_an_accepted_call_gives_its_policy_and_what_is_left(limiter):
    h = limiter.slide("k", W, 10, cost=3).headers()
    assert parse_list(h["RateLimit-Policy"]) == [("winlimit", {"q": 10, "w": 60})]
    assert parse_list(h["RateLimit"]) == [("winlimit", {"r": 7, "t": 60})]
    assert "Retry-After" not in h


def test_the_effective_window_is_the_reset_rounded_up(limiter):
    # A bucket of 700 ms holds its unit up to 699 ms past the minute: t is 61 then, not 60.
    d = limiter.slide("k", W, 10, bucket=700)
    assert W <= d.reset_after_ms < W + 700
    expected_t = 61 if d.reset_after_ms > W else 60
    assert parse_list(d.headers()["RateLimit"]) == [("winlimit", {"r": 9, "t": expected_t})]


def test_a_rejection_adds_retry_after_rounded_up_and_the_window_does_not_outlast_it(limiter):
    for _ in range(3):
        limiter.gcra("k", W, 3)
    d = limiter.gcra("k", W, 3)
    # The bucket gains a unit in under 20 s and is full again in under 60.
    assert not d.allowed and 19_000 < d.retry_after_ms <= 20_000 < d.reset_after_ms
    h = d.headers()
    assert h["Retry-After"] == "20"
    assert parse_list(h["RateLimit"]) == [("winlimit", {"r": 0, "t": 20})]


def test_a_retry_under_a_second_is_one_second_not_zero(limiter):
    for _ in range(2):
        limiter.gcra("k", 600, 2)
    d = limiter.gcra("k", 600, 2)
    assert not d.allowed and 0 < d.retry_after_ms <= 300
    assert d.headers()["Retry-After"] == "1"


def test_a_request_that_can_never_fit_has_no_retry_after(limiter):
    d = limiter.slide("k", W, 3, cost=4)
    assert (d.allowed, d.retry_after_ms) == (False, -1)
    h = d.headers()
    assert "Retry-After" not in h
    assert parse_list(h["RateLimit"]) == [("winlimit", {"r": 3, "t": 0})]


def test_fixed_reports_its_window_and_a_peek_on_nothing_resets_now(limiter):
    assert parse_list(limiter.fixed("k", W, 5, peek=True).headers()["RateLimit"]) == [("winlimit", {"r": 5, "t": 0})]
    h = limiter.fixed("k", W, 5, cost=5).headers()
    assert parse_list(h["RateLimit-Policy"]) == [("winlimit", {"q": 5, "w": 60})]
    assert parse_list(h["RateLimit"]) == [("winlimit", {"r": 0, "t": 60})]


def test_several_windows_list_every_policy_and_name_the_binding_one(limiter):
    d = limiter.slide("k", [(1000, 2), (W, 100)])
    h = d.headers()
    assert parse_list(h["RateLimit-Policy"]) == [("winlimit-1s", {"q": 2, "w": 1}), ("winlimit-60s", {"q": 100, "w": 60})]
    assert parse_list(h["RateLimit"]) == [("winlimit-1s", {"r": 1, "t": 1})]


def test_several_windows_name_the_longer_one_when_it_binds(limiter):
    limiter.slide("k", [(1500, 5), (W, 2)])
    h = limiter.slide("k", [(1500, 5), (W, 2)]).headers()
    assert parse_list(h["RateLimit-Policy"]) == [("winlimit-1500ms", {"q": 5, "w": 2}), ("winlimit-60s", {"q": 2, "w": 60})]
    assert parse_list(h["RateLimit"])[0][0] == "winlimit-60s"
    assert parse_list(h["RateLimit"])[0][1]["r"] == 0


def test_gcra_announces_its_bucket_and_the_time_to_refill_it(limiter):
    # 100 a minute, 10 at once: a bucket of 10 that refills in 6 s, the same long-run rate.
    h = limiter.gcra("k", W, 100, burst=10).headers()
    assert parse_list(h["RateLimit-Policy"]) == [("winlimit", {"q": 10, "w": 6})]
    assert parse_list(h["RateLimit"]) == [("winlimit", {"r": 9, "t": 1})]


def test_a_policy_name_with_quotes_is_escaped(make_limiter, r):
    h = make_limiter(name='say "hi" \\o/').fixed("k", W, 2).headers()
    assert parse_list(h["RateLimit-Policy"])[0][0] == 'say "hi" \\o/'
    assert parse_list(h["RateLimit"])[0][0] == 'say "hi" \\o/'


def test_a_decision_without_its_policy_refuses_to_guess():
    d = winlimit.Decision(True, 5, 4, 0, 1000, (winlimit.Policy("x", 6, 1000),))
    with pytest.raises(ValueError, match="no policy whose quota is its limit"):
        d.headers()
