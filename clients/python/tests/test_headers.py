"""Decision.headers(): draft-ietf-httpapi-ratelimit-headers fields, checked against the
Structured Field grammar (RFC 8941) they use."""

import re

import winlimit

W = 60_000

# sf-list of items: a bare sf-string, then ;key=integer parameters; members joined by ", ".
SF_STRING = r'"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*"'
PARAMS = r'(?:;[a-z*][a-z0-9_.*-]*=-?\d{1,15})*'
SF_LIST = re.compile(rf'^{SF_STRING}{PARAMS}(?:, {SF_STRING}{PARAMS})*$')
ITEM = re.compile(rf'({SF_STRING})((?:;[a-z]+=-?\d+)*)')


def parse(field):
    """A structured list as [(name, {param: int})]; asserts the grammar first."""
    assert SF_LIST.match(field), field
    out = []
    for name, params in ITEM.findall(field):
        out.append((name.strip('"'), {k: int(v) for k, v in re.findall(r";([a-z]+)=(-?\d+)", params)}))
    return out


def test_allowed_decision_gives_policy_and_state_without_retry_after(r):
    d = winlimit.Limiter(r).slide("k", W, 10, cost=3)
    h = d.headers()
    assert parse(h["RateLimit-Policy"]) == [("winlimit", {"q": 10, "w": 60})]
    assert parse(h["RateLimit"]) == [("winlimit", {"r": 7, "t": 60})]
    assert "Retry-After" not in h


def test_rejected_decision_adds_retry_after_in_whole_seconds_rounded_up(r):
    limiter = winlimit.Limiter(r)
    limiter.gcra("g", 1500, 1)
    d = limiter.gcra("g", 1500, 1)
    assert not d.allowed and 0 < d.retry_after_ms <= 1500
    h = d.headers()
    assert h["Retry-After"] == str(-(-d.retry_after_ms // 1000))
    assert int(h["Retry-After"]) >= 1
    assert parse(h["RateLimit"]) == [("winlimit", {"r": 0, "t": -(-d.reset_after_ms // 1000)})]


def test_a_retry_under_a_second_is_never_zero():
    d = winlimit.Decision(False, 5, 0, 1, 1, ((1000, 5),))
    assert d.headers()["Retry-After"] == "1"


def test_a_request_that_can_never_fit_has_no_retry_after():
    d = winlimit.Decision(False, 5, 5, -1, 0, ((1000, 5),))
    assert "Retry-After" not in d.headers()


def test_several_windows_list_every_policy_and_report_the_binding_one(r):
    d = winlimit.Limiter(r).slide("k", [(1000, 2), (W, 100)])
    h = d.headers()
    assert parse(h["RateLimit-Policy"]) == [("winlimit-1s", {"q": 2, "w": 1}), ("winlimit-60s", {"q": 100, "w": 60})]
    assert parse(h["RateLimit"]) == [("winlimit-1s", {"r": 1, "t": 1})]
