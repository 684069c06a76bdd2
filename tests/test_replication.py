"""Effects replication: replicas (with and without the module) and the AOF end up identical."""

import uuid

import pytest

from kit import editions
from kit.aof import APPEND_ONLY, rewrite_done
from kit.bucket_layout import encode as bucket_ring
from kit import commands
from kit.commands import call
from kit.keyspace import server_ms, snapshot
from kit.support import wait_until


W = 60000  # long windows: nothing expires while keyspaces are compared
ALIGNED_W = 10**12  # an aligned window ending in 2033, never about to end


def workload(r):
    """A mix of accepted, rejected, trimming, healing and read-only calls."""
    now = server_ms(r)
    for _ in range(5):
        call(r, "slide", "s:basic", W, 3)                   # 3 accepted, 2 rejected
    call(r, "slide", "s:cost", W, 10, "COST", 4)
    call(r, "slide", "s:bigcost", W, 5000, "COST", 2500)    # replicated in several ZADDs
    for _ in range(30):
        call(r, "slide", "s:burst", W, 100, "COST", 3)       # many members in the same ms
    r.zadd("s:trim", {str(uuid.uuid4()): s for s in (now - 3 * W, now - W - 1, now - 100)})
    call(r, "slide", "s:trim", W, 5)                        # accepted, trims
    r.zadd("s:trimrej", {str(uuid.uuid4()): s for s in (now - 2 * W, now - 200, now - 100)})
    call(r, "slide", "s:trimrej", W, 2)                     # rejected, trims, sets the TTL
    call(r, "slide", "s:zero", W, 0)                        # nothing
    call(r, "slide", "s:toobig", W, 2, "COST", 3)           # nothing
    for _ in range(4):
        call(r, "slide", "s:pairs", 1000, 3, W, 10)         # two windows: 3 accepted, 1 rejected
    for _ in range(4):
        call(r, "slide", "b:basic", W, 3, "BUCKET", 1000)   # bucketed: 3 accepted, 1 rejected
    call(r, "slide", "b:big", W, 10**9, "BUCKET", 100, "COST", 10**9)
    r.set("b:trim", bucket_ring(100, {(now // 100 - 1000) * 100: 1, (now // 100) * 100: 2}, slots=1001))
    call(r, "slide", "b:trim", W, 10, "BUCKET", 100)        # removes a departed bucket, records
    # A ring with more slots than winlimit writes (set by hand), its bucket in a slot past
    # those: the words it changes replicate all the same.
    slots = next(n for n in range(4100, 9000) if 4010 <= (now // 100) % n <= n - 50)
    r.set("b:huge", bucket_ring(100, {(now // 100) * 100: 1}, slots=slots))
    call(r, "slide", "b:huge", W, 10, "BUCKET", 100)
    for _ in range(4):
        call(r, "gcra", "g:basic", W, 3)                    # 3 accepted, 1 rejected
    call(r, "gcra", "g:frac", 100000, 3, "BURST", 7, "COST", 2)  # a TAT with a fraction of a ms
    for _ in range(5):
        call(r, "fixed", "f:basic", W, 3)
    call(r, "fixed", "f:align", ALIGNED_W, 3, "ALIGN")
    call(r, "fixed", "f:align", ALIGNED_W, 3, "ALIGN", "COST", 2)
    r.set("f:heal", 2)
    call(r, "fixed", "f:heal", W, 5)                        # accepted, heals
    r.set("f:healrej", 9)
    call(r, "fixed", "f:healrej", W, 5)                     # rejected, heals
    r.set("f:healalign", 1)
    call(r, "fixed", "f:healalign", ALIGNED_W, 5, "ALIGN")
    call(r, "fixed", "f:cost", W, 10, "COST", 3)
    for cmd, key in [("slide_ro", "s:basic"), ("slide_ro", "s:ro"), ("fixed_ro", "f:basic"),
                     ("fixed_ro", "f:ro")]:
        call(r, cmd, key, W, 5)
    refund_and_block(r)


# Each algorithm's arguments for the REFUND and BLOCK keys: a limit of 2.
REFUND_BLOCK = {"s": ("slide", (W, 2)), "b": ("slide", (W, 2, "BUCKET", 1000)),
                "f": ("fixed", (W, 2)), "g": ("gcra", (W, 2))}


def refund_and_block(r):
    """Per algorithm: a partial refund, a refund of everything (the key goes or counts 0), a
    block (a rejection with BLOCK, retried, refunded: neither moves it)."""
    for prefix, (command, args) in REFUND_BLOCK.items():
        for _ in range(2):
            call(r, command, f"{prefix}:refund", *args)
        call(r, command, f"{prefix}:refund", *args, "REFUND", 1)
        call(r, command, f"{prefix}:refundall", *args)
        call(r, command, f"{prefix}:refundall", *args, "REFUND", 5)
        for _ in range(3):
            call(r, command, f"{prefix}:block", *args, "BLOCK", 3 * W)
        call(r, command, f"{prefix}:block", *args, "REFUND", 1)


# What the workload leaves behind (calls that change nothing create no key).
WORKLOAD_KEYS = sorted(k.encode() for k in [
    "s:basic", "s:cost", "s:bigcost", "s:burst", "s:trim", "s:trimrej", "s:pairs",
    "b:basic", "b:big", "b:trim", "b:huge", "g:basic", "g:frac",
    "f:basic", "f:align", "f:heal", "f:healrej", "f:healalign", "f:cost",
    *(f"{prefix}:{key}" for prefix in REFUND_BLOCK for key in ("refund", "block")), "f:refundall"])


def test_workload_creates_the_expected_keys(r):
    workload(r)
    assert sorted(snapshot(r)) == WORKLOAD_KEYS


@pytest.mark.parametrize("replica_module", [True, False], ids=["module", "no-module"])
def test_replica_ends_identical(start_server, replica_module):
    master = start_server()
    replica = start_server(module=replica_module, args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    workload(master.client)
    assert master.client.execute_command("WAIT", 1, 5000) == 1
    expected = snapshot(master.client)
    assert sorted(expected) == WORKLOAD_KEYS
    assert snapshot(replica.client) == expected


def test_every_command_ends_identical_on_a_replica_and_an_aof_replay_without_the_module(start_server):
    """Every row of the command table the edition has (the module: CL.THROTTLE included), over
    the mixed workload: what
    replicates must be core commands this server accepts (Redis 6.0 has no SET ... PXAT)."""
    master = start_server(module_args=["cell-compat", "yes"], args=APPEND_ONLY)
    replica = start_server(module=False, args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    workload(master.client)
    served = [c for c in commands.TABLE if editions.EDITION in c.editions]
    for command in served:
        for _ in range(3):
            master.client.execute_command(command.name, "t:" + command.short, *command.sample)
    assert master.client.execute_command("WAIT", 1, 5000) == 1
    expected = snapshot(master.client)
    written = {("t:" + c.short).encode() for c in served if c.writes}
    assert sorted(expected) == sorted(WORKLOAD_KEYS + list(written))
    assert snapshot(replica.client) == expected
    replica.stop()  # a master stopping with a replica attached waits for it
    master.restart(module=False)
    assert snapshot(master.client) == expected


@pytest.mark.parametrize("module_on_restart", [True, False], ids=["module", "no-module"])
def test_aof_restart_restores_identical_keyspace(start_server, module_on_restart):
    s = start_server(args=["--appendonly", "yes"])
    workload(s.client)
    before = snapshot(s.client)
    s.restart(module=module_on_restart)
    assert snapshot(s.client) == before


def aof_size(r):
    return r.info("persistence")["aof_current_size"]


def test_calls_that_change_nothing_propagate_nothing(start_server):
    s = start_server(args=APPEND_ONLY)
    r = s.client
    for _ in range(3):
        call(r, "slide", "s", W, 3)
        call(r, "fixed", "f", W, 3)
    wait_until(lambda: rewrite_done(r), what="no AOF rewrite under way")
    size = aof_size(r)
    call(r, "slide", "s", W, 3)                     # rejected, nothing stale, same expiry
    call(r, "fixed", "f", W, 3)                     # rejected
    call(r, "slide", "s", W, 2, "COST", 3)          # cost above limit
    call(r, "fixed", "new", W, 0)                   # limit 0 on a missing key
    call(r, "slide", "new", W, 0)
    for cmd in ("slide_ro", "fixed_ro"):
        call(r, cmd, "s" if cmd == "slide_ro" else "f", W, 5)
        call(r, cmd, "new", W, 5)
    assert aof_size(r) == size
    for command in ("slide", "fixed", "gcra"):
        call(r, command, "new", W, 3, "REFUND", 1)  # a refund on a missing key
    assert aof_size(r) == size
    call(r, "fixed", "f", W, 3, "BLOCK", W)         # a block is written...
    size = aof_size(r)
    call(r, "fixed", "f", W, 3, "BLOCK", W)         # ...but not a rejection during it
    call(r, "fixed", "f", W, 3, "REFUND", 2)        # nor a refund during it
    assert aof_size(r) == size
    call(r, "slide", "s", W, 10)                    # control: an accepted call is written
    assert aof_size(r) > size


LUA_CALLS = """
redis.call('WINLIMIT.SLIDE', KEYS[1], ARGV[1], 3)
redis.call('WINLIMIT.SLIDE', KEYS[1], ARGV[1], 3, 'COST', 2)
return redis.call('WINLIMIT.FIXED', KEYS[2], ARGV[1], 3)
"""


@editions.module_only("a Lua script calls WINLIMIT.* as commands, which only the module registers")
def test_calls_inside_multi_and_lua_replicate_their_effects(start_server):
    master = start_server()
    replica = start_server(module=False, args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    r = master.client
    tx = r.pipeline(transaction=True)
    for _ in range(3):
        tx.execute_command("WINLIMIT.SLIDE", "s:multi", W, 2)
    tx.execute_command("WINLIMIT.FIXED", "f:multi", W, 2)
    assert [reply[0] for reply in tx.execute()] == [1, 1, 0, 1]
    assert r.eval(LUA_CALLS, 2, "s:lua", "f:lua", W)[0] == 1
    assert r.execute_command("WAIT", 1, 5000) == 1
    expected = snapshot(r)
    assert sorted(expected) == [b"f:lua", b"f:multi", b"s:lua", b"s:multi"]
    assert snapshot(replica.client) == expected
