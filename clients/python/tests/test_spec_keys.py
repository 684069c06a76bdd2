"""The default key every client shares (clients/spec/keys.json): an address's key, an IPv6
one as its network; and on servers bound to ::1, the ASGI middleware, the FastAPI dependency
and the WSGI middleware (Flask) counting the client under its /64, or its whole address with
ipv6_subnet=128. The Node client's tests read the same file (spec-keys.test.mjs)."""

import flask
import pytest
import starlette.requests

import test_asgi
import test_wsgi
import winlimit
from apps import FRAMEWORKS, served
from winlimit import asgi, wsgi

from shared_spec import load

SPEC = load("keys.json")
W = 60_000


def one_a_minute(lim, key):
    return lim.fixed(key, W, 1)


@pytest.mark.parametrize("case", SPEC["cases"], ids=[f"{c['address']}/{c['ipv6_subnet']}" for c in SPEC["cases"]])
def test_an_address_has_the_shared_key(case):
    assert winlimit.ip_key(case["address"], case["ipv6_subnet"]) == case["key"]


AT_64 = [c for c in SPEC["cases"] if c["ipv6_subnet"] == 64]


@pytest.mark.parametrize("case", AT_64, ids=[c["address"] for c in AT_64])
def test_the_exported_remote_address_functions_give_the_shared_key_at_64(case):
    # An app building its own key from them ("user:" + remote_address(r)) gets the /64 too.
    request = starlette.requests.Request({"type": "http", "client": (case["address"], 1234), "headers": []})
    assert asgi.remote_address(request) == case["key"]
    assert wsgi.remote_address({"REMOTE_ADDR": case["address"]}) == case["key"]


def test_the_default_subnet_is_64():
    assert winlimit.ip_key("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64"


def test_two_addresses_share_a_key_in_one_64_and_not_across_64s_or_at_128():
    same, other = "2001:db8:1:2::1", "2001:db8:1:2:ffff::9"
    assert winlimit.ip_key(same) == winlimit.ip_key(other)
    assert winlimit.ip_key(same) != winlimit.ip_key("2001:db8:1:3::1")
    assert winlimit.ip_key(same, 128) != winlimit.ip_key(other, 128)


@pytest.mark.parametrize("subnet", SPEC["bad_subnets"])
@pytest.mark.parametrize("make", [
    lambda subnet: winlimit.ip_key("::1", subnet),
    lambda subnet: asgi.RateLimitMiddleware(test_asgi.hello, test_asgi.limiter_on(1), one_a_minute, ipv6_subnet=subnet),
    lambda subnet: asgi.RateLimit(test_asgi.limiter_on(1), one_a_minute, ipv6_subnet=subnet),
    lambda subnet: wsgi.RateLimitMiddleware(flask.Flask("x").wsgi_app, test_wsgi.limiter_on(1), one_a_minute,
                                            ipv6_subnet=subnet),
], ids=["ip_key", "asgi", "fastapi", "wsgi"])
def test_a_subnet_that_is_not_1_to_128_is_refused(make, subnet):
    with pytest.raises((TypeError, ValueError)):
        make(subnet)


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("options, key", [({}, "rl:::/64"), ({"ipv6_subnet": 128}, "rl:::1")], ids=["64", "128"])
def test_a_client_on_ipv6_is_counted_under_its_network(framework, server, r, options, key):
    with served(framework, server.port, one_a_minute, host="::1", **options) as http:
        statuses = [http.get("/").status_code for _ in range(2)]
    assert statuses == [200, 429]
    assert [k.decode() for k in r.keys("*")] == [key]
