"""What a hung or gone Redis adds to each decision of the Python client, with the limiter's
circuit breaker open against without it (the time before the breaker: about `timeout`).
`make bench-breaker` (PYTHONPATH=tests:bench) runs it and writes
bench/results/breaker.md and .json.

For the sync and the asyncio limiter, each with `fallback=winlimit.memory.Limiter()`: the
latency of one decision with Redis up (the baseline), then with the server stopped by
SIGSTOP (hung: calls get no answer) and with it killed (gone: its port closed), once with
the breaker (open after its default 3 failures, with an `open_ms` long enough not to end
during the run, so every measured call is answered as open) and once with `breaker=False`,
where every call waits for the timeout (hung) or the refused connection (gone) before the
fallback decides. The times are a whole decision's: with Redis failing, all of it is added
to the request.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

import redis
import redis.asyncio
from redis.backoff import NoBackoff
from redis.retry import Retry

import winlimit
import winlimit.asyncio
import winlimit.memory
from kit.server import RedisServer

RESULTS = Path(__file__).resolve().parent.parent / "results"
TIMEOUT = 1.0  # the limiter's call timeout, the asyncio limiter's and the middleware's default
OPEN_MS = 30_000  # open for the whole run: every measured call is answered as open


def percentile(samples: List[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def options(breaker: bool, fallback: bool) -> Dict[str, Any]:
    return {"fallback": winlimit.memory.Limiter() if fallback else None, "timeout": TIMEOUT, "breaker": breaker,
            "open_ms": OPEN_MS}


def failing_fast(call: Callable[[], Any]) -> Callable[[], Any]:
    """`call` with its error caught: without a fallback a call fails (at once, once open)."""
    def run() -> Any:
        try:
            return call()
        except (redis.RedisError, OSError):  # BreakerOpen, or the failures that open it
            return None

    return run


def failing_fast_async(call: Callable[[], Any]) -> Callable[[], Any]:
    async def run() -> Any:
        try:
            return await call()
        except (redis.RedisError, OSError):  # BreakerOpen, or the failures that open it
            return None

    return run


def client_options(port: int) -> Dict[str, Any]:
    # No retries, and a socket timeout beyond the limiter's: the limiter's timeout decides.
    return {"host": "127.0.0.1", "port": port, "retry": Retry(NoBackoff(), 0), "socket_timeout": 5}


def timed_sync(call: Callable[[], Any], n: int) -> List[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        call()
        out.append((time.perf_counter() - started) * 1000)
    return out


async def timed_async(call: Callable[[], Any], n: int) -> List[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        await call()
        out.append((time.perf_counter() - started) * 1000)
    return out


def measure(flavour: str, port: int, breaker: bool, n: int, warm: int, fallback: bool = True) -> List[float]:
    """n decisions' times in ms, after `warm` calls (which open the breaker when Redis fails);
    without a fallback, the time to fail."""
    if flavour == "sync":
        limiter = winlimit.Limiter(redis.Redis(**client_options(port)), **options(breaker, fallback))
        call = failing_fast(lambda: limiter.fixed("bench:k", 60_000, 10**9))
        timed_sync(call, warm)
        return timed_sync(call, n)

    async def run() -> List[float]:
        limiter = winlimit.asyncio.Limiter(redis.asyncio.Redis(**client_options(port)), **options(breaker, fallback))
        call = failing_fast_async(lambda: limiter.fixed("bench:k", 60_000, 10**9))
        await timed_async(call, warm)
        return await timed_async(call, n)

    return asyncio.run(run())


def row(flavour: str, redis_state: str, breaker: str, samples: List[float]) -> Dict[str, Any]:
    return {"limiter": flavour, "redis": redis_state, "breaker": breaker, "calls": len(samples),
            "p50_ms": round(percentile(samples, 50), 3), "p99_ms": round(percentile(samples, 99), 3)}


def run_flavour(flavour: str, n: int, slow_n: int) -> List[Dict[str, Any]]:
    server = RedisServer(module=False)
    try:
        rows = [row(flavour, "up", "closed", measure(flavour, server.port, True, n, 100))]
        os.kill(server.pid, signal.SIGSTOP)
        try:
            rows.append(row(flavour, "hung (SIGSTOP)", "open", measure(flavour, server.port, True, n, 3)))
            rows.append(row(flavour, "hung (SIGSTOP)", "open, no fallback: fails fast",
                            measure(flavour, server.port, True, n, 3, fallback=False)))
            rows.append(row(flavour, "hung (SIGSTOP)", "off", measure(flavour, server.port, False, slow_n, 0)))
        finally:
            os.kill(server.pid, signal.SIGCONT)
        port = server.port
        server.stop()
        rows.append(row(flavour, "gone (killed)", "open", measure(flavour, port, True, n, 3)))
        rows.append(row(flavour, "gone (killed)", "off", measure(flavour, port, False, n, 0)))
        return rows
    finally:
        server.stop()


def table(rows: List[Dict[str, Any]]) -> str:
    lines = ["| limiter | Redis | breaker | calls | p50 ms | p99 ms |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['limiter']} | {r['redis']} | {r['breaker']} | {r['calls']} | {r['p50_ms']} | "
                     f"{r['p99_ms']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per fast run")
    parser.add_argument("--slow-calls", type=int, default=10, help="calls per run that waits for the timeout")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    rows = [r for flavour in ("sync", "asyncio") for r in run_flavour(flavour, args.calls, args.slow_calls)]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "breaker.json").write_text(json.dumps(rows, indent=2) + "\n")
    text = (f"# The Python client with Redis hung or gone\n\nOne decision's latency (`limiter.fixed`), with "
            f"`fallback=winlimit.memory.Limiter()` and `timeout={TIMEOUT}` s; breaker `open` (its default "
            f"options, opened by the first calls) or `off` (`breaker=False`: every call waits for Redis first); "
            f"without a fallback, the time for the call to raise `BreakerOpen` (the middleware's 503 or let-through). "
            f"With Redis failing, the whole decision's time is added to the request. "
            f"`make bench-breaker` (`python -m winbench.breaker`), on a 2-core machine shared with other work.\n\n"
            f"{table(rows)}\n")
    (args.out / "breaker.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
