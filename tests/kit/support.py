"""Helpers for the cluster / failover / persistence / security / observability tests.

A representative workload, polling with a deadline, a keyspace-event recorder that needs no
sleeps, and the two ways of promoting a replica.
"""

import time
import uuid

import pytest

from kit import commands
from kit.commands import call
from kit.keyspace import server_ms
from kit.ready import READY_TIMEOUT, wait_until  # noqa: F401 (tests import wait_until from here)
from kit.server import REDIS_60


W = 60000           # long windows: nothing expires while keyspaces are compared
ALIGNED_W = 10**12  # an aligned window ending in 2033, never about to end


def workload(r):
    """Limiter keys of every shape (accepted, rejected, trimmed, healed, COST, ALIGN, keys
    seeded as a Lua script would) plus plain keys. Returns the number of keys it leaves."""
    now = server_ms(r)
    for _ in range(5):
        call(r, "slide", "s:basic", W, 3)
    for _ in range(20):
        call(r, "slide", "s:burst", W, 100, "COST", 3)
    r.zadd("s:lua", {str(uuid.uuid4()): s for s in (now - 3 * W, now - 500, now - 100)})
    call(r, "slide", "s:lua", W, 5)                          # trims one, adds one
    r.zadd("s:noexp", {"m1": now - 50})
    call(r, "slide", "s:noexp", W, 1)                        # rejected, heals the TTL
    for _ in range(4):
        call(r, "slide", "s:pairs", 1000, 3, W, 10)          # two windows: 3 accepted, 1 rejected
    for _ in range(4):
        call(r, "slide", "b:pairs", 1000, 3, W, 10, "BUCKET", 100)  # bucketed, two windows
    for _ in range(4):
        call(r, "gcra", "g:basic", W, 3, "BURST", 2)             # GCRA: 2 accepted, 2 rejected
    for _ in range(5):
        call(r, "fixed", "f:basic", W, 3)
    call(r, "fixed", "f:align", ALIGNED_W, 3, "ALIGN", "COST", 2)
    r.set("f:heal", 2)
    call(r, "fixed", "f:heal", W, 5)                         # accepted, heals
    call(r, "fixed", "f:cost", W, 10, "COST", 7)
    for cmd, key in [("slide_ro", "s:basic"), ("fixed_ro", "f:basic"), ("slide_ro", "s:none")]:
        call(r, cmd, key, W, 5)
    r.set("plain:string", "v", px=W)
    r.rpush("plain:list", "a", "b")
    for command in commands.DEFAULT:  # every command of the kit's table, on a key of its own
        r.execute_command(command.name, "t:" + command.short, *command.sample)
    return 13 + len(commands.WRITERS)


def each_writers_key(r, prefix, persist=True):
    """For every writer of the kit's table, key `<prefix><short>` holding one unit of its
    sample call (limit 5), a log with a stale entry too, and no TTL unless persist=False: a
    call that wrongly writes (trims, heals the TTL) changes the key."""
    now = server_ms(r)
    for c in commands.WRITERS:
        key = prefix + c.short
        r.execute_command(c.name, key, *c.sample)
        if c.key_type == "zset":
            r.zadd(key, {"stale": now - 10**7})
        if persist:
            r.persist(key)


class KeyEvents:
    """Records keyevent notifications of database 0 (psubscribe __keyevent@0__:*).

    events(fn) first drains what came before (the test's own setup), then runs fn, writes a
    sentinel key and reads notifications until the sentinel's own event arrives: everything
    fn fired was published before it, in order.
    """

    SENTINEL = b"__sentinel__"

    def __init__(self, client):
        self.client = client
        self.pubsub = client.pubsub()
        self.pubsub.psubscribe("__keyevent@0__:*")
        wait_until(lambda: self.pubsub.get_message(timeout=1.0), what="psubscribe confirmation")

    def events(self, fn):
        self._until_sentinel()
        fn()
        return self._until_sentinel()

    def _until_sentinel(self):
        self.client.set(self.SENTINEL, 1)
        out = []
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            msg = self.pubsub.get_message(timeout=1.0)
            if msg is None or msg["type"] != "pmessage":
                continue
            event = msg["channel"].split(b":", 1)[1].decode()
            if msg["data"] == self.SENTINEL:
                return out
            out.append((event, msg["data"].decode()))
        raise AssertionError(f"sentinel event never arrived; got {out}")

    def close(self):
        self.pubsub.close()


def role(server):
    return server.client.info("replication")["role"]


def promote_with_replicaof_no_one(master, replica):
    """The replica stops following; the old master stays a master and keeps taking writes."""
    replica.client.execute_command("REPLICAOF", "NO", "ONE")
    wait_until(lambda: role(replica) == "master", what="replica promoted")


def promote_with_failover(master, replica):
    """The master pauses writes, waits for the replica to catch up, then swaps roles."""
    if REDIS_60:
        pytest.skip("FAILOVER arrived in Redis 6.2")
    master.client.execute_command("FAILOVER", "TO", "127.0.0.1", replica.port)
    wait_until(lambda: role(replica) == "master" and role(master) == "slave"
               and master.client.info("replication")["master_failover_state"] == "no-failover",
               what="FAILOVER to complete")
