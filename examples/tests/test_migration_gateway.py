"""docs/migration/spring-cloud-gateway.md's before (examples/migration/spring-cloud-gateway-before.yml)
against its after (the winlimit gateway's own test configuration, which its tests route by):
the route and its RequestRateLimiter filter stay, only the filter's arguments change. The
before is parsed, not served: a gateway application on RedisRateLimiter would be a second
Spring Cloud Gateway build for one page's configuration."""

import pathlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
BEFORE = ROOT / "examples" / "migration" / "spring-cloud-gateway-before.yml"
AFTER = ROOT / "clients" / "java" / "winlimit-spring-cloud-gateway" / "src" / "test" / "resources" / "application.yml"


def routes(path):
    """The gateway's routes by id."""
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {route["id"]: route for route in config["spring"]["cloud"]["gateway"]["server"]["webflux"]["routes"]}


def limiter_args(route):
    (rate_limiter,) = [f for f in route["filters"] if f["name"] == "RequestRateLimiter"]
    return rate_limiter["args"]


def test_the_before_is_a_token_bucket_of_redis_rate_limiter():
    assert limiter_args(routes(BEFORE)["minute"]) == {
        "redis-rate-limiter.replenishRate": 10,
        "redis-rate-limiter.burstCapacity": 20,
        "redis-rate-limiter.requestedTokens": 1,
    }


def test_the_route_and_its_filter_stay_after():
    before, after = routes(BEFORE)["minute"], routes(AFTER)["minute"]
    assert {k: v for k, v in before.items() if k != "filters"} == {k: v for k, v in after.items() if k != "filters"}
    assert [f["name"] for f in before["filters"]] == [f["name"] for f in after["filters"]]


def test_only_the_rate_limiters_arguments_change():
    before, after = limiter_args(routes(BEFORE)["minute"]), limiter_args(routes(AFTER)["minute"])
    assert all(k.startswith("redis-rate-limiter.") for k in before)
    assert all(k.startswith("winlimit-rate-limiter.") for k in after)
