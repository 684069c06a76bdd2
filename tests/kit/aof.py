"""A server's append-only file: its size and the commands appended to it."""

import glob
import os

#: Arguments for a server whose AOF a test reads while it runs. Under the default
#: `appendfsync everysec` a server postpones writing its AOF (for up to two seconds) while the
#: previous background fsync is still running, as it may be on a busy disk, and replies
#: meanwhile: the file lags the replies. With `no` every reply's effects are written first.
APPEND_ONLY = ("--appendonly", "yes", "--appendfsync", "no")


def aof_paths(directory):
    """The AOF files in a server's directory, oldest first: the incremental ones (Redis 7.0+),
    or appendonly.aof."""
    return sorted(glob.glob(os.path.join(directory, "appendonlydir", "*.incr.aof"))) \
        or glob.glob(os.path.join(directory, "appendonly.aof"))


def rewrite_done(client):
    """No AOF rewrite under way or scheduled: a server started with appendonly yes rewrites
    once at start-up, and until that ends its AOF sizes move by themselves."""
    p = client.info("persistence")
    return bool(p.get("aof_enabled")) and not p.get("aof_rewrite_in_progress") and not p.get("aof_rewrite_scheduled")


def aof_bytes(server):
    """Bytes in the server's AOF files."""
    return sum(os.path.getsize(p) for p in aof_paths(server.dir))


def aof_commands(server, since):
    """The names (upper case) of the commands appended to the AOF after its first `since`
    bytes (as aof_bytes counted them), in order, MULTI and EXEC included."""
    return command_names(b"".join(open(p, "rb").read() for p in aof_paths(server.dir))[since:])


def command_names(data):
    """The names (upper case) of the commands in a run of AOF: RESP arrays, with the `#`
    annotation lines Redis 7.0+ may write skipped."""
    names, i = [], 0
    while i < len(data):
        if data[i:i + 1] == b"#":
            i = data.index(b"\r\n", i) + 2
            continue
        if data[i:i + 1] != b"*":
            raise ValueError(f"AOF: expected '*' at byte {i}, found {data[i:i + 20]!r}")
        end = data.index(b"\r\n", i)
        argc, i = int(data[i + 1:end]), end + 2
        for j in range(argc):
            end = data.index(b"\r\n", i)
            length = int(data[i + 1:end])
            if j == 0:
                names.append(data[end + 2:end + 2 + length].decode(errors="replace").upper())
            i = end + 2 + length + 2
    return names
