"""The header cases every client shares (clients/spec/headers.json): each call's command line
and policies, and the fields its decision gives for a reply, byte for byte. The Node client's
tests read the same file (clients/node/test/headers.test.mjs)."""

import http_sf
import pytest
import redis

import winlimit

from shared_spec import build, load

CASES = load("headers.json")


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["name"] for c in CASES["cases"]])
def test_the_call_sends_its_command_line(case):
    assert [str(arg) for arg in build(case["call"]).args] == case["args"]


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["name"] for c in CASES["cases"]])
def test_the_reply_gives_the_shared_fields(case):
    call = build(case["call"])
    assert winlimit.Decision.from_reply(case["reply"], call.policies).headers() == case["headers"]


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["name"] for c in CASES["cases"]])
def test_the_shared_fields_are_structured_field_lists_of_strings_with_integers(case):
    # The spec itself checked by a Structured Field parser, so no client is held to a
    # malformed field.
    for field in ("RateLimit-Policy", "RateLimit"):
        for name, params in http_sf.parse(case["headers"][field].encode("ascii"), tltype="list"):
            assert type(name) is str and all(type(v) is int for v in params.values()), case["headers"][field]


@pytest.mark.parametrize("case", CASES["errors"], ids=[c["name"] for c in CASES["errors"]])
def test_a_reply_without_its_policy_refuses_to_give_fields(case):
    call = build(case["call"])
    with pytest.raises(ValueError, match=case["error"]):
        winlimit.Decision.from_reply(case["reply"], call.policies).headers()


@pytest.mark.parametrize("name", CASES["bad_names"])
def test_a_name_that_is_not_printable_ascii_is_refused(name):
    # A client that never connects: the name is refused before anything is sent.
    with pytest.raises(ValueError, match="printable ASCII"):
        winlimit.Limiter(redis.Redis(host="127.0.0.1", port=1), name=name)
