"""The servers the bench measures on, and probing whether a contender's command exists."""

from __future__ import annotations

from pathlib import Path

import redis

from kit.server import RedisServer

from winbench.config import R


class Server:
    """A server of the bench's own, started by the test kit's launcher (a free loopback port,
    no persistence, stopped by PID). `modules` are (path, args) pairs; `extra` more options.
    Its clients decode replies to str."""

    def __init__(self, redis_server: str, modules: list[tuple[Path, list[str]]], workdir: Path, extra=()):
        self.redis_server = redis_server
        self.modules = modules
        self.extra = list(extra)
        self.workdir = workdir
        self.server: RedisServer | None = None
        self.port = 0

    @property
    def pid(self) -> int | None:
        return self.server.pid if self.server else None

    def start(self) -> redis.Redis:
        self.workdir.mkdir(parents=True, exist_ok=True)
        loads = [arg for path, args in self.modules for arg in ("--loadmodule", str(path), *args)]
        self.server = RedisServer(module=False, args=[*loads, *self.extra], dir=str(self.workdir),
                                  server_bin=self.redis_server)
        self.port = self.server.port
        return self.server.new_client(decode_responses=True)

    def stop(self) -> None:
        if self.server:
            self.server.stop(keep_dir=True)


def probe(r: redis.Redis, argv: list[str]) -> str:
    """Empty if one call of argv (on a probe key) answers; else why the contender is n/a."""
    try:
        r.execute_command(*[a.replace(R, "0" * 12) for a in argv])
    except redis.ResponseError as e:
        msg = str(e)
        if msg.lower().startswith("unknown command"):
            return "n/a (command missing)"
        return f"n/a ({msg.strip()[:80]})"
    finally:
        r.flushall(asynchronous=False)
    return ""
