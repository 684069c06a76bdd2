"""Driving the server with redis-benchmark: one run, its throughput and latencies."""

from __future__ import annotations

import csv
import io
import subprocess
import time

from winbench.config import CLIENTS, KEYSPACE, PIPELINE


def run_benchmark(rb: str, port: int, argv: list[str], requests: int, threads: int,
                  keyspace: int = KEYSPACE) -> dict:
    cmd = [rb, "-h", "127.0.0.1", "-p", str(port), "-c", str(CLIENTS), "-P", str(PIPELINE),
           "-r", str(keyspace), "-n", str(requests), "--csv"]
    if threads > 1:
        cmd += ["--threads", str(threads)]
    cmd += argv
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    elapsed = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError(f"redis-benchmark failed ({p.returncode}): {p.stderr.strip()}")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    if not rows:
        raise RuntimeError(f"no CSV output from redis-benchmark: {p.stdout!r} {p.stderr!r}")
    row = rows[-1]
    return {
        "ops": float(row["rps"]),
        "avg_ms": float(row["avg_latency_ms"]),
        "p50_ms": float(row["p50_latency_ms"]),
        "p99_ms": float(row["p99_latency_ms"]),
        "max_ms": float(row["max_latency_ms"]),
        "wall_s": round(elapsed, 3),
    }
