"""The bytes of a bucketed log (SLIDE ... BUCKET), as README "WINLIMIT.SLIDE ... BUCKET"
documents them, for the tests and the benchmark: a string of big-endian 64-bit words,
b"wlbucket", bucket_ms, total, oldest, newest, then per slot a bucket start and its units;
the bucket starting at s lives in slot (s // bucket_ms) % slots. No server, no imports
with side effects."""

import struct

MAGIC = b"wlbucket"


def encode(bucket_ms, buckets, slots, total=None, oldest=None, newest=None):
    """The bytes winlimit stores for `buckets` ({start: units}) in a ring of `slots`; the
    header words default to what the buckets imply (pass others to write a hostile key)."""
    total = sum(buckets.values()) if total is None else total
    oldest = min(buckets) if oldest is None else oldest
    newest = max(buckets) if newest is None else newest
    words = [0] * (2 * slots)
    for start, units in buckets.items():
        j = (start // bucket_ms) % slots
        words[2 * j:2 * j + 2] = [start, units]
    return MAGIC + struct.pack(f">{4 + 2 * slots}q", bucket_ms, total, oldest, newest, *words)


def decode(raw):
    """A bucketed log as a dict: bucket_ms, total, oldest, newest, slots, and buckets
    ({start: units} of the buckets that count: start in oldest..newest, in its own slot);
    None when `raw` is not one."""
    if raw is None or not raw.startswith(MAGIC):
        return None
    bucket_ms, total, oldest, newest, *words = struct.unpack(f">{len(raw) // 8 - 1}q", raw[8:])
    slots = len(words) // 2
    buckets = {}
    for j in range(slots):
        start, units = words[2 * j], words[2 * j + 1]
        if oldest <= start <= newest and (start // bucket_ms) % slots == j and units:
            buckets[start] = units
    return {"bucket_ms": bucket_ms, "total": total, "oldest": oldest, "newest": newest,
            "slots": slots, "buckets": buckets}


def bucket_log(client, key):
    """The bucketed key `key` of a server, decoded; it must be one."""
    log = decode(client.get(key))
    assert log is not None, client.get(key)
    return log
