"""The exact error text a server replies, read over a raw socket: redis-py rewrites error
texts, this does not."""

import socket

from kit import editions
from kit.ready import READY_TIMEOUT


def error_of(port, *args, auth=None):
    """Send one command (after `AUTH user pass` when auth=(user, pass)); return the exact
    error text it replies ("ERR ..."), or None when the reply is not an error. A WINLIMIT.*
    call is sent in the kit's edition's form (kit.editions)."""
    commands = ([["AUTH", *auth]] if auth else []) + [list(editions.translate(args))]
    payload = b""
    for command in commands:
        parts = [a if isinstance(a, bytes) else str(a).encode() for a in command]
        payload += b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)
    with socket.create_connection(("127.0.0.1", port), timeout=READY_TIMEOUT) as s:
        s.sendall(payload)
        f = s.makefile("rb")
        if auth:
            ok = f.readline()
            if ok != b"+OK\r\n":
                raise AssertionError(f"AUTH failed: {ok!r}")
        line = f.readline()
    if not line.endswith(b"\r\n"):
        raise ConnectionError(f"incomplete reply {line!r}")
    return line[1:-2].decode() if line.startswith(b"-") else None
