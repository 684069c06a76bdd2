"""A server's append-only file: its size and the commands appended to it."""

import glob
import os


def _aof_paths(server):
    return sorted(glob.glob(os.path.join(server.dir, "appendonlydir", "*.incr.aof"))) \
        or glob.glob(os.path.join(server.dir, "appendonly.aof"))


def aof_bytes(server):
    """Bytes in the server's AOF files (the incremental ones since Redis 7.0)."""
    return sum(os.path.getsize(p) for p in _aof_paths(server))


def aof_commands(server, since):
    """The names (upper case) of the commands appended to the AOF after its first `since`
    bytes (as aof_bytes counted them), in order, MULTI and EXEC included."""
    data = b"".join(open(p, "rb").read() for p in _aof_paths(server))[since:]
    names, i = [], 0
    while i < len(data):
        assert data[i:i + 1] == b"*", data[i:i + 20]
        end = data.index(b"\r\n", i)
        argc, i = int(data[i + 1:end]), end + 2
        for j in range(argc):
            end = data.index(b"\r\n", i)
            length = int(data[i + 1:end])
            if j == 0:
                names.append(data[end + 2:end + 2 + length].decode().upper())
            i = end + 2 + length + 2
    return names
