"""The wall-time benchmark's targets: what only it can measure (memory, AOF bytes, the worst
call). Costs per call are compared in instructions (`make bench-instr`, winbench.instr),
which do not move with the machine's load; ops/s and µs are reported, not judged."""

from __future__ import annotations

import math

from winbench.config import MEMORY_LIMITS, T_BUCKET_61_BYTES, T_SLIDE_AOF_BYTES, T_WORST_CALL_US
from winbench.worst import WORST_REPS


def evaluate_targets(memory: list[dict], state_memory: list[dict], aof: list[dict], worst: list[dict]) -> list[dict]:
    """PASS/FAIL rows: {target, value, pass (None: not measured)}."""
    return [bucket_memory_target(state_memory), *aof_targets(aof), worst_call_target(worst),
            *slide_memory_targets(memory)]


def verdict(ok: bool | None) -> str:
    return {True: "PASS", False: "FAIL", None: "SKIP"}[ok]


def target_line(t: dict) -> str:
    """One target as the reports and the console print it."""
    return f"{verdict(t['pass'])}: {t['target']}: {t['value']}"


def unmeasured(label: str, why: str) -> dict:
    return {"target": label, "value": f"not measured ({why})", "pass": None}


def bucket_memory_target(state_memory: list[dict]) -> dict:
    bucket = next((m for m in state_memory if m["contender"] == "BUCKET"), None)
    label = "BUCKET key with all 61 buckets of `60000 ... BUCKET 1000` < 2 KB"
    if not bucket or "bytes" not in bucket:
        return unmeasured(label, bucket["status"] if bucket else "not run")
    n = bucket.get("buckets_per_key")
    as_specified = "`60000 " in bucket["call"] and n in (None, 61)
    return {"target": label, "value": f"{bucket['bytes']:,.0f} B ({bucket['call']}"
                                      f"{'' if n in (None, 61) else f'; only {n} buckets held'})",
            "pass": bucket["bytes"] < T_BUCKET_61_BYTES if as_specified else None}


def aof_targets(aof: list[dict]) -> list[dict]:
    rows = {a["contender"]: a for a in aof}

    def one_command(a: dict) -> bool:
        return a["commands_per_call"] <= 1.01 and a["multi_per_call"] <= 0.01

    def target(label: str, name: str, ok) -> dict:
        a = rows.get(name)
        if a is None or "bytes_per_call" not in a:
            return unmeasured(label, a["status"] if a else "not run")
        return {"target": label, "value": f"{a['bytes_per_call']:.1f} B, {a['commands_per_call']:.3f} "
                                          f"commands and {a['multi_per_call']:.3f} MULTI per call", "pass": ok(a)}

    out = [target(f"an accepted SLIDE appends <= {T_SLIDE_AOF_BYTES} B to the AOF, one command, no MULTI/EXEC",
                  "SLIDE", lambda a: a["bytes_per_call"] <= T_SLIDE_AOF_BYTES and one_command(a))]
    for name, what in (("FIXED", "FIXED"), ("GCRA", "GCRA"), ("BUCKET_FRESH", "BUCKET")):
        out.append(target(f"{what}: one replicated command per accepted call in the steady state", name, one_command))
    return out


def worst_call_target(worst: list[dict]) -> dict:
    timed = [w for w in worst if w.get("usec") is not None]
    label = f"no single call at default settings over {T_WORST_CALL_US // 1000} ms"
    if not timed:
        return unmeasured(label, "no call timed")
    w = max(timed, key=lambda x: x["usec"])
    return {"target": label, "value": f"longest {w['usec']:,.0f} µs, median of {WORST_REPS} calls "
                                      f"(the longest single one {w['usec_max']:,} µs) ({w['call']})",
            "pass": w["usec"] <= T_WORST_CALL_US}


def slide_memory_targets(memory: list[dict]) -> list[dict]:
    mem = {(m["contender"], m["limit"]): m for m in memory}
    out = []
    for limit in MEMORY_LIMITS:
        a, b = mem.get(("SLIDE", limit)), mem.get(("LUA_SLIDE", limit))
        label = f"SLIDE memory <= the Lua sliding log's, limit {limit:,}"
        if a is None or b is None:
            out.append(unmeasured(label, "not run"))
            continue
        value = f"{a['bytes']:,.0f} B vs {b['bytes']:,.0f} B (mean of {a['keys']} keys)"
        ok = a["bytes"] <= b["bytes"]
        if not ok:
            # same encoding, difference within the random-level noise of the skiplist?
            se = math.sqrt(a["bytes_sd"] ** 2 / a["keys"] + b["bytes_sd"] ** 2 / b["keys"])
            diff = a["bytes"] - b["bytes"]
            if a["encoding"] == b["encoding"] and diff <= 2 * se:
                ok = True
                value += (f": SLIDE {diff:,.0f} B larger, within the noise of random skiplist "
                          f"levels (2 standard errors = {2 * se:,.0f} B): equal")
            else:
                value += f": SLIDE {diff:,.0f} B ({diff / b['bytes'] * 100:.2f}%) larger"
        out.append({"target": label, "value": value, "pass": ok})
    return out
