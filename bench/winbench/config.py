"""Where the bench finds things, how hard it drives the server, and its targets."""

from __future__ import annotations

import shutil
from pathlib import Path


BENCH_DIR = Path(__file__).resolve().parent.parent  # bench/
REPO = BENCH_DIR.parent

LUA_DIR = BENCH_DIR / "lua"
TMP = BENCH_DIR / ".tmp"
DEFAULT_MODULE = REPO / "target" / "release" / "libwinlimit.so"
MODULE_ARGS = ["cell-compat", "yes"]
REDIS_BENCHMARK = shutil.which("redis-benchmark") or "redis-benchmark"  # --redis-benchmark sets it

CLIENTS = 50
PIPELINE = 16
KEYSPACE = 10_000
MEMORY_LIMITS = (10, 100, 1000, 10_000)
R = "__rand_int__"  # redis-benchmark replaces it with a 12-digit number below -r

# Targets (issues 3 and 9): thresholds of the PASS/FAIL lines.
T_FIXED_VS_INCR = 0.55  # ops/s
T_SLIDE_VS_LUA = 3.5  # ops/s, random keys
T_HOT_VS_LUA = 4.0  # ops/s, one hot key
T_SIZE_FLAT = 0.80  # ops/s at 10,000 entries >= 0.80 x ops/s at 10 entries
T_FIXED_VS_CELL_US = 0.5  # FIXED server µs/call <= half of redis-cell's
T_GCRA_VS_CELL_US = 1 / 1.8
T_TWO_WINDOWS_US = 1.25
T_SLIDE_AOF_BYTES = 80
T_WORST_CALL_US = 10_000
T_BUCKET_61_BYTES = 2048
