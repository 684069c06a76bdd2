"""winlimit.max-limit: module argument, CONFIG GET/SET, and the error above it. It bounds
the exact log, whose size grows with the limit; FIXED keeps one number whatever the limit."""

import pytest
import redis

from kit import editions
from kit.fixtures import module_server
from kit.server import REDIS_62, RedisServer
from kit.commands import call
from kit.errors import error_of
from kit.keyspace import snapshot
from kit.support import W


COMMANDS = ["slide", "slide_ro"]


def max_limit(r):
    """CONFIG GET winlimit.max-limit, as the text Redis replies."""
    return r.config_get("winlimit.max-limit")["winlimit.max-limit"]


# A server loaded with `--loadmodule libwinlimit.so max-limit 5`.
small = module_server(module_args=["max-limit", "5"])


@pytest.fixture
def rs(small):
    small.client.flushall()
    if not REDIS_62:
        small.client.config_set("winlimit.max-limit", 5)
    return small.client


# Redis 6.2 has no module configs: there the module argument is the only way to set it.
needs_module_configs = pytest.mark.skipif(REDIS_62, reason="Redis 6 (6.0, 6.2) has no module configs")
# Every test below the default's: the library cannot read module settings.
module_setting = editions.module_only("winlimit.max-limit is a module setting; the library's cap is fixed at 10000")


def test_default_is_ten_thousand(server, r):
    """The library's fixed cap is the module's default."""
    assert call(r, "slide", "k", W, 10000)[:2] == (1, 10000)
    assert error_of(server.port, "WINLIMIT.SLIDE", "k", W, 10001) == "ERR limit must be an integer between 0 and 10000"


@needs_module_configs
@module_setting
def test_config_get_gives_the_default(r):
    assert max_limit(r) == "10000"


@module_setting
def test_module_argument_sets_it(small, rs):
    assert error_of(small.port, "WINLIMIT.SLIDE", "k", W, 6) == "ERR limit must be an integer between 0 and 5"
    if not REDIS_62:
        assert max_limit(rs) == "5"


@module_setting
@pytest.mark.skipif(not REDIS_62, reason="servers with module configs take CONFIG SET")
def test_without_module_configs_config_set_is_refused_and_the_argument_holds(small, rs):
    with pytest.raises(redis.ResponseError):
        rs.config_set("winlimit.max-limit", 7)
    assert error_of(small.port, "WINLIMIT.SLIDE", "k", W, 6) == "ERR limit must be an integer between 0 and 5"


@module_setting
@pytest.mark.parametrize("command", COMMANDS)
def test_module_argument_limit_above_it_gets_error_and_writes_nothing(small, rs, command):
    call(rs, "slide", "s", W, 5)
    call(rs, "fixed", "f", W, 5)
    before = snapshot(rs, dump=True)
    for key in ("s", "f", "new"):
        assert error_of(small.port, "WINLIMIT." + command.upper(), key, W, 6) == \
            "ERR limit must be an integer between 0 and 5"
    assert snapshot(rs, dump=True) == before


@module_setting
@pytest.mark.parametrize("command", COMMANDS)
def test_limit_equal_to_it_is_accepted(rs, command):
    assert call(rs, command, "k", W, 5)[:2] == (1, 5)


@module_setting
@needs_module_configs
@pytest.mark.parametrize("command", COMMANDS)
def test_config_set_changes_the_bound_at_once(small, rs, command):
    assert rs.config_set("winlimit.max-limit", 7)
    assert max_limit(rs) == "7"
    assert call(rs, command, "k", W, 7)[:2] == (1, 7)
    assert error_of(small.port, "WINLIMIT." + command.upper(), "k2", W, 8) == \
        "ERR limit must be an integer between 0 and 7"
    assert rs.exists("k2") == 0


@module_setting
@needs_module_configs
@pytest.mark.parametrize("value", ["0", "-1", "1000000000001", "abc", "1.5"])
def test_config_set_outside_one_to_ten_to_the_twelve_fails_and_keeps_the_value(rs, value):
    with pytest.raises(redis.ResponseError):
        rs.config_set("winlimit.max-limit", value)
    assert max_limit(rs) == "5"


@module_setting
@needs_module_configs
@pytest.mark.parametrize("value", ["1", "1000000000000"])
def test_config_set_accepts_the_bounds(rs, value):
    assert rs.config_set("winlimit.max-limit", value)
    assert max_limit(rs) == value


@module_setting
@needs_module_configs
def test_config_set_to_the_upper_bound_allows_that_limit(small, rs):
    rs.config_set("winlimit.max-limit", 10**12)
    assert call(rs, "slide", "k", W, 10**12)[:3] == (1, 10**12, 10**12 - 1)


@module_setting
@pytest.mark.parametrize("command", ["fixed", "fixed_ro"])
def test_fixed_limits_are_not_bounded_by_it(rs, command):
    assert call(rs, command, "k", W, 10**12)[:2] == (1, 10**12)
    assert error_of(rs.connection_pool.connection_kwargs["port"], "WINLIMIT." + command.upper(), "k", W,
                    10**12 + 1) == "ERR limit must be an integer between 0 and 1000000000000"


@module_setting
def test_a_config_file_value_out_of_range_refuses_the_load_and_says_why(tmp_path):
    """The server logs the value it refused; the module's own line says the load failed for
    it (not that the server lacks module configs). Redis 6.2 refuses the directive itself."""
    with pytest.raises(RuntimeError, match="exited at start-up") as failed:
        RedisServer(args=["--winlimit.max-limit", "0"], dir=str(tmp_path))  # a failed start keeps its dir
    log = str(failed.value)
    if REDIS_62:
        assert "Bad directive" in log
    else:
        assert "winlimit: could not apply the winlimit.* configs" in log
        assert "no module configs" not in log
