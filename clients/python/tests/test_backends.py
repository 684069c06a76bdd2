"""backend="auto" and the loading rules, on real servers with and without the module: which
backend answers (INFO commandstats shows every command that reached the server), the library
and the script loaded again after FUNCTION FLUSH and SCRIPT FLUSH with each unit recorded
once, an older library replaced and a newer one left alone, a call that timed out never sent
again, a limited ACL user, a server that refuses TIME, and a cluster without the module. Sync
and asyncio alike (`flavour`)."""

import os
import signal
import threading
from collections import Counter

import pytest
import redis
import redis.asyncio
from redis.backoff import NoBackoff
from redis.crc import key_slot
from redis.retry import Retry

import winlimit
from winlimit._backend import library

from conftest import cluster_limiter_over, limiter_over, module_cluster
from kit.ready import CALL_TIMEOUT
from kit.server import REDIS_62
from kit.support import wait_until

W = 60_000
FUNCTIONS = pytest.mark.skipif(REDIS_62, reason="Redis 6.x has no Functions")
REDIS_6 = pytest.mark.skipif(not REDIS_62, reason="auto chooses the scripts where Functions are missing: Redis 6.x")
# What the tests and the connections send themselves, not the limiter's choice.
OWN = {"info", "config", "client", "hello", "acl", "auth", "ping", "function", "script"}
# What the library calls inside FCALL and EVALSHA (commandstats counts them too): README's
# ACL rules for a limited user, and the SETRANGE key 0 "" before the scripts' first write.
INSIDE = {"time", "type", "pexpiretime", "pttl", "get", "zcard", "zcount", "zrange", "zrangebyscore",
          "zrevrange", "set", "incr", "incrby", "bitfield", "zadd", "zrem", "zremrangebyscore", "del", "pexpireat",
          "setrange"}


def commands_run(admin, own=OWN):
    """INFO commandstats: calls per command sent to the server (subcommands counted with
    their command, as Redis 6 counts them), without `own`; the commands the library ran
    inside must be among INSIDE."""
    counts = Counter()
    for name, stats in admin.info("commandstats").items():
        command = name.removeprefix("cmdstat_").split("|")[0]
        if command not in own:
            counts[command] += stats["calls"]
    sent = {command: n for command, n in counts.items() if command not in INSIDE}
    if "fcall" in sent or "evalsha" in sent:
        return sent
    assert sent == counts, "the module's commands call no others"
    return sent


def two_rounds(limiter):
    """slide, a fixed peek and gcra, twice; their backends."""
    return {d.backend for _ in range(2)
            for d in (limiter.slide("s", W, 5), limiter.fixed("f", W, 5, peek=True), limiter.gcra("g", W, 5))}


def loaded_version(admin):
    return admin.execute_command("FCALL_RO", "winlimit_version", 0).decode()


# --- auto ----------------------------------------------------------------------------------


def test_auto_uses_the_module_where_it_is_loaded(start_server, make_limiter):
    server = start_server(module=True)
    server.client.execute_command("CONFIG", "RESETSTAT")
    assert two_rounds(make_limiter(port=server.port, backend="auto")) == {"module"}
    assert commands_run(server.client) == {"command": 1, "winlimit.slide": 2, "winlimit.fixed_ro": 2, "winlimit.gcra": 2}


@FUNCTIONS
def test_auto_loads_and_calls_the_library_where_the_module_is_not(start_server, make_limiter):
    server = start_server(module=False)
    server.client.execute_command("CONFIG", "RESETSTAT")
    assert two_rounds(make_limiter(port=server.port, backend="auto")) == {"functions"}
    # COMMAND INFO once; FCALL_RO winlimit_version finds no library, FUNCTION LOAD loads it.
    assert commands_run(server.client, OWN - {"function"}) == {"command": 1, "fcall_ro": 1 + 2, "function": 1, "fcall": 4}
    assert loaded_version(server.client) == library().version


@REDIS_6
def test_auto_uses_the_scripts_on_redis_6(start_server, make_limiter):
    server = start_server(module=False)
    server.client.execute_command("CONFIG", "RESETSTAT")
    assert two_rounds(make_limiter(port=server.port, backend="auto")) == {"scripts"}
    # The first EVALSHA answers NOSCRIPT; SCRIPT LOAD, then it runs.
    assert commands_run(server.client, OWN - {"script"}) == {"command": 1, "evalsha": 1 + 6, "script": 1}


def test_forcing_the_module_where_it_is_missing_raises_module_not_loaded(start_server, make_limiter):
    server = start_server(module=False)
    with pytest.raises(winlimit.ModuleNotLoaded):
        make_limiter(port=server.port, backend="module").slide("k", W, 5)


def test_an_unknown_backend_is_refused(r):
    with pytest.raises(ValueError, match="'auto', 'module', 'functions', 'scripts'"):
        winlimit.Limiter(r, backend="lua")


# --- recovery ------------------------------------------------------------------------------


@FUNCTIONS
def test_after_function_flush_the_library_is_loaded_again_and_the_call_counts_once(start_server, make_limiter):
    server = start_server(module=False)
    limiter = make_limiter(port=server.port, backend="functions")
    assert limiter.slide("k", W, 5).remaining == 4
    server.client.execute_command("FUNCTION", "FLUSH")
    d = limiter.slide("k", W, 5)
    assert (d.allowed, d.remaining, d.backend) == (True, 3, "functions")
    assert server.client.zcard("k") == 2
    assert loaded_version(server.client) == library().version


@pytest.mark.parametrize("module", [False, True], ids=["without-module", "with-module"])
def test_after_script_flush_the_script_is_loaded_again_and_the_call_counts_once(start_server, make_limiter, module):
    server = start_server(module=module)
    limiter = make_limiter(port=server.port, backend="scripts")
    assert limiter.fixed("k", W, 5).remaining == 4
    server.client.script_flush()
    d = limiter.fixed("k", W, 5)
    assert (d.allowed, d.remaining, d.backend) == (True, 3, "scripts")
    assert server.client.get("k") == b"2"
    assert server.client.script_exists(library().sha) == [True]


def _library_of_version(version):
    own = library()
    return own.text.replace(f"local VERSION = '{own.version}'", f"local VERSION = '{version}'")


@FUNCTIONS
def test_an_older_library_is_replaced(start_server, make_limiter):
    server = start_server(module=False)
    server.client.execute_command("FUNCTION", "LOAD", "REPLACE", _library_of_version("0.0.1"))
    assert make_limiter(port=server.port, backend="auto").gcra("k", W, 5).backend == "functions"
    assert loaded_version(server.client) == library().version


@FUNCTIONS
def test_a_newer_library_is_left_alone_and_used(start_server, make_limiter):
    server = start_server(module=False)
    server.client.execute_command("FUNCTION", "LOAD", "REPLACE", _library_of_version("99.0.0"))
    limiter = make_limiter(port=server.port, backend="auto")
    assert [limiter.gcra("k", W, 5).remaining for _ in range(2)] == [4, 3]
    server.client.execute_command("FUNCTION", "FLUSH")  # gone: ours is loaded ...
    assert limiter.gcra("k", W, 5).remaining == 2
    server.client.execute_command("FUNCTION", "LOAD", "REPLACE", _library_of_version("99.0.0"))
    assert limiter.gcra("k", W, 5).remaining == 1  # ... and a newer one back is not replaced
    assert loaded_version(server.client) == "99.0.0"


# --- a call whose reply never came ---------------------------------------------------------


@pytest.mark.parametrize("backend", ["module", "functions", "scripts"])
def test_a_call_whose_reply_never_came_is_not_sent_again(start_server, flavour, backend):
    if backend == "functions" and REDIS_62:
        pytest.skip("Redis 6.x has no Functions")
    server = start_server(module=backend == "module")
    # The client's own retries off: what is tested is that the limiter sends nothing again.
    # CALL_TIMEOUT, not less: the warm-up that loads the library must beat it on a loaded machine.
    options = {"host": "127.0.0.1", "port": server.port, "socket_timeout": CALL_TIMEOUT, "retry": Retry(NoBackoff(), 0)}
    with limiter_over(flavour, lambda: redis.Redis(**options), lambda: redis.asyncio.Redis(**options),
                      backend=backend) as limiter:
        limiter.slide("warm-up", W, 5)  # detected and loaded
        # The call reaches the server's socket unanswered; the server wakes 0.1 s after the
        # client gave up, in time to answer anything sent again.
        wake = threading.Timer(CALL_TIMEOUT + 0.1, os.kill, (server.pid, signal.SIGCONT))
        os.kill(server.pid, signal.SIGSTOP)
        wake.start()
        try:
            with pytest.raises(redis.TimeoutError):
                limiter.slide("k", W, 5)
        finally:
            wake.join()
    # Woken, the server runs the call it had received, once.
    wait_until(lambda: server.client.zcard("k") == 1, what="the call to run")
    server.client.ping()
    assert server.client.zcard("k") == 1


# --- a limited ACL user --------------------------------------------------------------------

# README's rules for the data the library touches (Redis 6 reads expiries with PTTL).
DATA = ("+time +type +pttl" if REDIS_62 else "+time +type +pexpiretime +pttl") + \
    " +get +zcard +zcount +zrange +zrangebyscore +zrevrange" \
    " +set +incr +incrby +bitfield +zadd +zrem +zremrangebyscore +del +pexpireat"
# May call the library and the scripts, and load scripts, but not load functions.
CALLER = ("" if REDIS_62 else "+fcall +fcall_ro ") + "+evalsha +script|load +command|info"


def user_limiter(server, flavour, rules, **kw):
    """A limiter over a client logged in as a user with these ACL rules (keys rl:*)."""
    server.client.execute_command("ACL", "SETUSER", "app", "reset", "on", ">pw", "~rl:*", *rules.split())
    options = {"host": "127.0.0.1", "port": server.port, "username": "app", "password": "pw"}
    return limiter_over(flavour, lambda: redis.Redis(**options), lambda: redis.asyncio.Redis(**options), **kw)


@FUNCTIONS
def test_a_user_who_may_not_load_functions_calls_the_library_loaded_for_it(start_server, flavour):
    server = start_server(module=False)
    server.client.execute_command("FUNCTION", "LOAD", library().text)
    with user_limiter(server, flavour, f"{CALLER} {DATA}", backend="auto") as limiter:
        assert [(d.remaining, d.backend) for d in (limiter.slide("rl:k", W, 5), limiter.slide("rl:k", W, 5))] == [
            (4, "functions"), (3, "functions")]


@FUNCTIONS
def test_the_same_user_without_the_library_uses_the_scripts(start_server, flavour):
    server = start_server(module=False)
    with user_limiter(server, flavour, f"{CALLER} {DATA}", backend="auto") as limiter:
        assert [(d.remaining, d.backend) for d in (limiter.slide("rl:k", W, 5), limiter.slide("rl:k", W, 5))] == [
            (4, "scripts"), (3, "scripts")]
    assert server.client.execute_command("FUNCTION", "LIST") == []


@FUNCTIONS
def test_forcing_functions_for_that_user_names_the_missing_rule(start_server, flavour):
    server = start_server(module=False)
    with user_limiter(server, flavour, f"{CALLER} {DATA}", backend="functions") as limiter:
        with pytest.raises(winlimit.MissingPermission, match=r"\+function\|load"):
            limiter.slide("rl:k", W, 5)
    assert server.client.exists("rl:k") == 0


def test_a_server_that_refuses_time_says_so(start_server, flavour):
    server = start_server(module=False)
    with user_limiter(server, flavour, f"{CALLER} {DATA} -time", backend="scripts") as limiter:
        with pytest.raises(redis.ResponseError, match="refused TIME"):
            limiter.gcra("rl:k", W, 5)
    assert server.client.exists("rl:k") == 0


# --- a cluster without the module ----------------------------------------------------------

KEYS = [f"user:{i}" for i in range(24)]


bare_cluster = module_cluster(False)


def test_a_cluster_without_the_module_limits_every_key_and_loads_on_each_primary(bare_cluster, flavour):
    for node in bare_cluster.nodes:
        node.client.flushall()
        node.client.script_flush()
        if not REDIS_62:
            node.client.execute_command("FUNCTION", "FLUSH")
    with cluster_limiter_over(flavour, bare_cluster.nodes[0].port, backend="auto") as lim:
        for key in KEYS:
            assert [(d.allowed, d.remaining) for d in (lim.fixed(key, W, 2), lim.fixed(key, W, 2), lim.fixed(key, W, 2))] == [
                (True, 1), (True, 0), (False, 0)]
            assert bare_cluster.owner(key_slot(key.encode())).client.get(key) == b"2"
        assert lim.slide("another", W, 2).backend == ("scripts" if REDIS_62 else "functions")
    owners = {bare_cluster.owner(key_slot(k.encode())).port for k in KEYS}
    assert owners == {n.port for n in bare_cluster.nodes}
    for node in bare_cluster.nodes:
        if REDIS_62:
            assert node.client.script_exists(library().sha) == [True]
        else:
            assert node.client.execute_command("FCALL_RO", "winlimit_version", 0).decode() == library().version
