"""Reading a server's keyspace and clock exactly, for comparisons across servers (master
and replica, before and after a restart)."""

from kit.server import REDIS_60, REDIS_62


def server_ms(client):
    """The server clock in ms (TIME)."""
    sec, usec = client.time()
    return sec * 1000 + usec // 1000


def expiry_slack(window_ms):
    """How much longer than its newest entry's window a sliding log's key may live
    (README: the expiry moves once per slack, not on every call)."""
    return min(window_ms // 8, 60000)


def set_pxat(client, key, value, at):
    """SET key value PXAT at, as one transaction of SET and PEXPIREAT where SET has no PXAT
    (Redis 6.0)."""
    if not REDIS_60:
        return client.set(key, value, pxat=at)
    tx = client.pipeline(transaction=True)
    tx.set(key, value).pexpireat(key, at)
    return tx.execute()[0]


def copy_key(client, source, destination):
    """COPY source destination; on Redis 6.0, which has no COPY, DUMP and RESTORE with the
    same absolute expiry."""
    if not REDIS_60:
        return client.copy(source, destination)
    at, value = pexpiretime(client, source), client.dump(source)
    if value is None or at == -2:  # no such key (or it expired meanwhile): COPY copies nothing
        return 0
    return client.restore(destination, max(at, 0), value, absttl=at > 0)


def pexpiretime(client, key):
    """The key's absolute expiry in ms (-1: none, -2: no key), exactly. Redis 6.2 has no
    PEXPIRETIME: there PTTL is read between two TIMEs (run in order, as one pipeline),
    retried until both fall in the same millisecond, so the sum is the stored absolute time."""
    if not REDIS_62:
        return client.execute_command("PEXPIRETIME", key)
    for _ in range(100):
        tx = client.pipeline(transaction=False)
        tx.time().pttl(key).time()
        before, ttl, after = tx.execute()
        ms = before[0] * 1000 + before[1] // 1000
        if ms == after[0] * 1000 + after[1] // 1000:
            return ttl if ttl < 0 else ms + ttl
    raise AssertionError("the clock never held still for one transaction")


def snapshot(client, dump=False):
    """The whole keyspace: key -> (type, value, pexpiretime[, DUMP]).

    value: string -> bytes, zset -> tuple of (member, score), list -> tuple,
    hash -> sorted tuple of items, set -> sorted tuple.
    """
    out = {}
    for key in client.scan_iter(count=1000):
        kind = client.type(key).decode()
        if kind == "string":
            value = client.get(key)
        elif kind == "zset":
            value = tuple(client.zrange(key, 0, -1, withscores=True))
        elif kind == "list":
            value = tuple(client.lrange(key, 0, -1))
        elif kind == "hash":
            value = tuple(sorted(client.hgetall(key).items()))
        elif kind == "set":
            value = tuple(sorted(client.smembers(key)))
        elif kind == "none":  # expired between SCAN and TYPE (or a replica's logically expired key)
            continue
        else:
            value = client.dump(key)
        entry = (kind, value, pexpiretime(client, key))
        out[key] = entry + (client.dump(key),) if dump else entry
    return out
