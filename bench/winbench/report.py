"""The report: machine facts, medians, targets, latest.md and latest.png."""

from __future__ import annotations

import datetime as dt
import math
import os
import platform
import statistics
import subprocess
from pathlib import Path

from winbench.config import CLIENTS, KEYSPACE, MEMORY_LIMITS, PIPELINE, REPO, T_BUCKET_61_BYTES, T_FIXED_VS_CELL_US, T_FIXED_VS_INCR, T_GCRA_VS_CELL_US, T_HOT_VS_LUA, T_SIZE_FLAT, T_SLIDE_AOF_BYTES, T_SLIDE_VS_LUA, T_TWO_WINDOWS_US, T_WORST_CALL_US
from winbench.contenders import Contender
from winbench.memory import MEM_KEYS
from winbench.replication import AOF_CALLS
from winbench.worst import WORST_REPS


def sh(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"? ({e})"


def machine_info(redis_server: str, rb: str) -> dict:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) // 1024} MiB"
    except OSError:
        pass
    commit = sh(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    if sh(["git", "-C", str(REPO), "status", "--porcelain", "--", "src", "Cargo.toml"]):
        commit += " (src modified)"
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": sh(["nproc"]),
        "cpu": cpu,
        "memory": mem,
        "kernel": platform.release(),
        "redis_server": sh([redis_server, "--version"]),
        "redis_benchmark": sh([rb, "--version"]),
        "git_commit": commit,
        "loadavg_at_start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def summarise(cs: list[Contender]) -> dict[str, dict]:
    out = {}
    for c in cs:
        if not c.rounds:
            continue
        m = {k: statistics.median(x[k] for x in c.rounds)
             for k in ("ops", "p50_ms", "p99_ms", "srv_usec_per_call", "srv_cpu_usec_per_op", "srv_cpu_busy")}
        m["ops_min"] = min(x["ops"] for x in c.rounds)
        m["ops_max"] = max(x["ops"] for x in c.rounds)
        m["usec_min"] = min(x["srv_usec_per_call"] for x in c.rounds)
        m["usec_max"] = max(x["srv_usec_per_call"] for x in c.rounds)
        if all("accepted_frac" in x for x in c.rounds):
            m["accepted_frac"] = statistics.median(x["accepted_frac"] for x in c.rounds)
        out[c.name] = m
    incr = out.get("INCR", {}).get("ops")
    for c in cs:
        if c.name not in out:
            continue
        m = out[c.name]
        m["x_incr"] = m["ops"] / incr if incr else None
        peer = out.get(c.lua_peer) if c.lua_peer else None
        m["x_lua"] = m["ops"] / peer["ops"] if peer else None
    return out


def evaluate_targets(cs: list[Contender], summary: dict, memory: list[dict], state_memory: list[dict],
                     aof: list[dict], worst: list[dict]) -> list[dict]:
    status = {c.name: c.status for c in cs}
    t = []

    def unmeasured(*names) -> str:
        why = [f"{n}: {status[n]}" if status.get(n) else f"{n} not run" for n in names if n not in summary]
        return "not measured (" + "; ".join(why) + ")"

    rounds = {c.name: c.rounds for c in cs}

    def paired(a, b, key) -> tuple[float, float, float]:
        """The median, least and greatest of the per-round ratios a/b: both ran in the same
        round, so a slow drift of the machine's load (another build for a minute) cancels."""
        ratios = [x[key] / y[key] for x, y in zip(rounds[a], rounds[b])]
        return statistics.median(ratios), min(ratios), max(ratios)

    def ops_target(label, a, b, threshold):
        if a in summary and b in summary:
            v, lo, hi = paired(a, b, "ops")
            t.append({"target": label, "value": f"{v:.2f}x (per-round ratios {lo:.2f}..{hi:.2f}; "
                                                f"ratio of the medians {summary[a]['ops'] / summary[b]['ops']:.2f})",
                      "ratio": v, "pass": v >= threshold})
        else:
            t.append({"target": label, "value": unmeasured(a, b), "pass": None})

    def us_target(label, a, b, factor):
        if a in summary and b in summary:
            x, y = summary[a]["srv_usec_per_call"], summary[b]["srv_usec_per_call"]
            v, lo, hi = paired(a, b, "srv_usec_per_call")
            t.append({"target": label, "value": f"{v:.2f}x (per-round ratios {lo:.2f}..{hi:.2f}; medians "
                                                f"{x:.2f} vs {y:.2f} µs/call)",
                      "ratio": v, "pass": v <= factor})
        else:
            t.append({"target": label, "value": unmeasured(a, b), "pass": None})

    ops_target(f"FIXED >= {T_FIXED_VS_INCR} x INCR (ops/s, random keys)", "FIXED", "INCR", T_FIXED_VS_INCR)
    us_target("FIXED server µs/call <= 1/2 of redis-cell's", "FIXED", "REDIS_CELL", T_FIXED_VS_CELL_US)
    ops_target(f"SLIDE >= {T_SLIDE_VS_LUA:g} x the Lua sliding log (ops/s, random keys)",
               "SLIDE", "LUA_SLIDE", T_SLIDE_VS_LUA)
    ops_target(f"SLIDE >= {T_HOT_VS_LUA:g} x the Lua sliding log (ops/s, hot key)",
               "SLIDE_HOT", "LUA_SLIDE_HOT", T_HOT_VS_LUA)
    us_target("SLIDE server µs/call <= redis-cell's", "SLIDE", "REDIS_CELL", 1.0)
    us_target("GCRA server µs/call <= 1/1.8 of redis-cell's", "GCRA", "REDIS_CELL", T_GCRA_VS_CELL_US)
    us_target("CL.THROTTLE (cell-compat) server µs/call <= 1/1.8 of redis-cell's", "CELL_COMPAT", "REDIS_CELL",
              T_GCRA_VS_CELL_US)
    us_target("BUCKET steady state server µs/call <= redis-cell's", "BUCKET_STEADY", "REDIS_CELL", 1.0)
    bucket = next((m for m in state_memory if m["contender"] == "BUCKET"), None)
    label = "BUCKET key with all 61 buckets of `60000 ... BUCKET 1000` < 2 KB"
    if bucket and "bytes" in bucket:
        n = bucket.get("buckets_per_key")
        as_specified = "`60000 " in bucket["call"] and n in (None, 61)
        t.append({"target": label, "value": f"{bucket['bytes']:,.0f} B ({bucket['call']}"
                                            f"{'' if n in (None, 61) else f'; only {n} buckets held'})",
                  "pass": bucket["bytes"] < T_BUCKET_61_BYTES if as_specified else None})
    else:
        t.append({"target": label, "value": f"not measured ({bucket['status'] if bucket else 'not run'})",
                  "pass": None})
    us_target(f"two windows <= {T_TWO_WINDOWS_US} x the server µs of one", "SLIDE_TWO_WINDOWS", "SLIDE",
              T_TWO_WINDOWS_US)

    rows = {a["contender"]: a for a in aof}

    def aof_target(label, name, ok):
        a = rows.get(name)
        if a is None or "bytes_per_call" not in a:
            t.append({"target": label, "value": f"not measured ({a['status'] if a else 'not run'})", "pass": None})
        else:
            t.append({"target": label, "value": f"{a['bytes_per_call']:.1f} B, {a['commands_per_call']:.3f} "
                                                f"commands and {a['multi_per_call']:.3f} MULTI per call",
                      "pass": ok(a)})

    one_command = lambda a: a["commands_per_call"] <= 1.01 and a["multi_per_call"] <= 0.01  # noqa: E731
    aof_target(f"an accepted SLIDE appends <= {T_SLIDE_AOF_BYTES} B to the AOF, one command, no MULTI/EXEC",
               "SLIDE", lambda a: a["bytes_per_call"] <= T_SLIDE_AOF_BYTES and one_command(a))
    for name, what in (("FIXED", "FIXED"), ("GCRA", "GCRA"), ("BUCKET_FRESH", "BUCKET")):
        aof_target(f"{what}: one replicated command per accepted call in the steady state", name, one_command)

    timed = [w for w in worst if w.get("usec") is not None]
    label = f"no single call at default settings over {T_WORST_CALL_US // 1000} ms"
    if timed:
        w = max(timed, key=lambda x: x["usec"])
        t.append({"target": label, "value": f"longest {w['usec']:,.0f} µs, median of {WORST_REPS} calls "
                                            f"(the longest single one {w['usec_max']:,} µs) ({w['call']})",
                  "pass": w["usec"] <= T_WORST_CALL_US})
    else:
        t.append({"target": label, "value": "not measured", "pass": None})

    mem = {(m["contender"], m["limit"]): m for m in memory}
    for limit in MEMORY_LIMITS:
        a, b = mem.get(("SLIDE", limit)), mem.get(("LUA_SLIDE", limit))
        label = f"SLIDE memory <= the Lua sliding log's, limit {limit:,}"
        if a is None or b is None:
            t.append({"target": label, "value": "not measured", "pass": None})
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
        t.append({"target": label, "value": value, "pass": ok})
    ops_target(f"SLIDE on a full window of 10,000 >= {T_SIZE_FLAT} x its speed on 10 entries",
               "SLIDE_FULL_10000", "SLIDE_FULL_10", T_SIZE_FLAT)
    return t


def fmt_ops(x: float) -> str:
    return f"{x:,.0f}"


def fmt_x(x) -> str:
    return "" if x is None else f"{x:.2f}"


def verdict(p) -> str:
    return {True: "PASS", False: "FAIL", None: "SKIP"}[p]


def write_markdown(path: Path, info: dict, cfg: dict, cs: list[Contender], summary: dict,
                   memory: list[dict], state_memory: list[dict], aof: list[dict], worst: list[dict],
                   targets: list[dict]) -> None:
    L = []
    L.append("# winlimit benchmark results\n")
    L.append(f"Generated by `bench/bench.py` on {info['date']} in {cfg['runtime_s']:.0f} s.\n")
    if cfg["quick"]:
        L.append("**`--quick` smoke run: too few requests and a single round; the figures "
                 "and verdicts below are not meaningful.**\n")
    L.append("## Machine\n")
    L.append("| | |\n|---|---|")
    for k, label in (("nproc", "nproc"), ("cpu", "CPU"), ("memory", "RAM"), ("kernel", "kernel"),
                     ("redis_server", "redis-server"), ("redis_benchmark", "redis-benchmark"),
                     ("git_commit", "git commit"), ("module", "module"), ("cell", "redis-cell"),
                     ("loadavg_at_start", "load average at start")):
        L.append(f"| {label} | {info.get(k, '')} |")
    L.append("")
    L.append(f"redis-benchmark: {CLIENTS} clients, pipeline {PIPELINE}, `-r {KEYSPACE}` (unless the "
             f"scenario says otherwise), {cfg['requests']:,} requests per run, {cfg['rounds']} round(s) "
             f"alternating forward and backward (median reported), redis-benchmark threads: {cfg['threads']}. The keyspace is "
             f"flushed before every run (then prefilled or warmed up where the scenario says so), and "
             f"`CONFIG RESETSTAT` precedes every run.\n")
    L.append("## Throughput and server time per call (median of rounds)\n")
    L.append("| contender | scenario | ops/s | server µs/call | p50 ms | p99 ms | server CPU | accepted | "
             "x INCR | x Lua | ops/s min..max | µs/call min..max |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in cs:
        m = summary.get(c.name)
        if not m:
            L.append(f"| {c.name} | {c.describe} | {c.status or 'not run'} | | | | | | | | | |")
            continue
        acc = f"{m['accepted_frac'] * 100:.1f}%" if "accepted_frac" in m else ""
        L.append(f"| {c.name} | {c.describe} | {fmt_ops(m['ops'])} | {m['srv_usec_per_call']:.2f} | "
                 f"{m['p50_ms']:.3f} | {m['p99_ms']:.3f} | {m['srv_cpu_busy'] * 100:.0f}% | {acc} | "
                 f"{fmt_x(m['x_incr'])} | {fmt_x(m['x_lua'])} | {fmt_ops(m['ops_min'])}..{fmt_ops(m['ops_max'])} | "
                 f"{m['usec_min']:.2f}..{m['usec_max']:.2f} |")
    L.append("")
    L.append("- *ops/s*: what a client sees on this box, where redis-benchmark shares the cores with the server.")
    L.append("- *server µs/call*: `usec_per_call` of the contender's command in `INFO commandstats` "
             "(time spent executing the command or script inside redis-server, without network I/O), "
             "per run after `CONFIG RESETSTAT`: what a dedicated server pays; the fair figure between "
             "two native commands. Redis times a call by the wall clock, so when other processes "
             "take the cores (server CPU well below 100%) preemption inflates it too.")
    L.append("- *server CPU*: redis-server's user+sys CPU time during the run / the run's wall time "
             "(near 100%: the server is the bottleneck; well below: redis-benchmark is).")
    L.append("- *accepted*: share of calls accepted (winlimit: `INFO winlimit`; Lua: units the keys hold "
             "after the run).")
    L.append("- *x Lua*: ops/s of a native command divided by ops/s of its Lua counterpart in the "
             "same scenario.")
    L.append("- Latencies are as measured by redis-benchmark with pipelining (a request's latency "
             "includes waiting for its pipeline batch).\n")
    if aof:
        L.append("## Replication: what one call appends to the AOF (steady state)\n")
        L.append("| contender | call | bytes/call | replicated commands/call | MULTI/EXEC per call | commands |")
        L.append("|---|---|---:|---:|---:|---|")
        for a in aof:
            if "bytes_per_call" not in a:
                L.append(f"| {a['contender']} | | {a['status']} | | | |")
                continue
            cmds = ", ".join(f"{k} {v:.3f}" for k, v in a["commands"].items())
            note = f" ({a['note']})" if a.get("note") else ""
            L.append(f"| {a['contender']} | `{a['call']}`{note} | {a['bytes_per_call']:.1f} | "
                     f"{a['commands_per_call']:.3f} | {a['multi_per_call']:.3f} | {cmds} |")
        n_calls = next((a["calls"] for a in aof if "calls" in a), AOF_CALLS)
        L.append(f"\nEach on a fresh server with `appendonly yes` (`appendfsync no`): {n_calls:,} calls "
                 f"after every key already exists (100 keys warmed up by 20 calls each, or the "
                 f"scenario's warm-up), limits high enough that every call is accepted. Bytes are what "
                 f"the AOF grew by, divided by the calls; commands are counted by parsing it. Redis wraps "
                 f"a call that replicates two or more commands in MULTI/EXEC. Key names are 14 bytes "
                 f"(`a:` + 12 digits).\n")
    if worst:
        L.append("## Worst case: the longest single calls at default settings\n")
        L.append("| call | server µs (median) | longest | main-thread CPU µs (median) |\n|---|---:|---:|---:|")
        for w in worst:
            if w.get("usec") is None:
                L.append(f"| {w['call']} | {w.get('status', '')} | | |")
            else:
                L.append(f"| {w['call']} | {w['usec']:,.0f} | {w['usec_max']:,} | {w['cpu_usec']:,} |")
        L.append(f"\nEach case called {WORST_REPS} times at default settings (`winlimit.max-limit` "
                 f"{next((w['max_limit'] for w in worst if 'max_limit' in w), '?'):,}); durations from SLOWLOG (`slowlog-log-slower-than 0`). "
                 "They are wall time: on this shared machine a call now and then is preempted and takes "
                 "several times its work, so the median is the figure and the target's measure; the "
                 "main thread's CPU time around the call (`INFO cpu`, including the INFO call itself) is "
                 "not inflated by preemption. The sliding logs are filled by the command itself or by "
                 "ZADD in its member format.\n")
    if memory or state_memory:
        L.append("## Memory per key\n")
    if memory:
        L.append("### A full window: `MEMORY USAGE key SAMPLES 0`\n")
        L.append("| limit | SLIDE | Lua sliding log | SLIDE / Lua | FIXED | Lua counter | FIXED / Lua |")
        L.append("|---:|---:|---:|---:|---:|---:|---:|")
        mem = {(m["contender"], m["limit"]): m for m in memory}

        def cell(name, limit):
            m = mem.get((name, limit))
            return "" if m is None else f"{m['bytes']:,.0f} B ({m['encoding']})"

        def rat(a, b, limit):
            x, y = mem.get((a, limit)), mem.get((b, limit))
            return "" if not x or not y else f"{x['bytes'] / y['bytes']:.2f}"

        for limit in MEMORY_LIMITS:
            L.append(f"| {limit:,} | {cell('SLIDE', limit)} | {cell('LUA_SLIDE', limit)} | "
                     f"{rat('SLIDE', 'LUA_SLIDE', limit)} | {cell('FIXED', limit)} | "
                     f"{cell('LUA_FIXED', limit)} | {rat('FIXED', 'LUA_FIXED', limit)} |")
        L.append("\nEach key was filled by calling the command (or script) limit+1 times "
                 "(window 60000 ms; the last call was rejected); mean over 20 keys (10 at 10,000; 5 "
                 "with --quick): skiplist node levels are random, so equal contents differ by "
                 "a few hundred bytes. SLIDE stores members as a per-key sequence of 10-digit "
                 "integers within 32 bits, the Lua log the microsecond time (16 digits).\n")
    if state_memory:
        L.append("### The other algorithms\n")
        L.append("| contender | key | MEMORY USAGE | encoding |\n|---|---|---:|---|")
        for m in state_memory:
            if "bytes" in m:
                L.append(f"| {m['contender']} | {m['call']} | {m['bytes']:,.0f} B | {m['encoding']} |")
            else:
                L.append(f"| {m['contender']} | {m['call']} | {m['status']} | |")
        L.append(f"\nMean of {MEM_KEYS} keys each. The BUCKET keys were filled by the command itself, one "
                 f"call per key per bucket for longer than the window, on a server of their own.\n")
    L.append("## Targets\n")
    L.append("A ratio between two contenders is the median of their per-round ratios (both ran in "
             "the same round, so a drift of the machine's load cancels); the ratio of the medians "
             "of the table is shown too.\n")
    for t in targets:
        L.append(f"- {verdict(t['pass'])}: {t['target']}: {t['value']}")
    L.append("")
    L.append("![chart](latest.png)\n")
    path.write_text("\n".join(L))


COLORS = {"core": "#888888", "native": "#2b7bba", "lua": "#e08a2c", "cell": "#4a9a4a"}


def write_chart(path: Path, cs: list[Contender], summary: dict, memory: list[dict]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    names = [c.name for c in cs if c.name in summary]
    kinds = [c.kind for c in cs if c.name in summary]
    y = list(range(len(names)))[::-1]
    fig, axes = plt.subplots(1, 3, figsize=(20, 7), gridspec_kw={"width_ratios": [3, 3, 2]})
    for ax, key, lo_key, hi_key, scale, xlabel, title, fmt in (
            (axes[0], "ops", "ops_min", "ops_max", 1e-3, "thousand ops/s (median; whiskers: min..max of rounds)",
             f"Throughput: redis-benchmark, {CLIENTS} clients, pipeline {PIPELINE}", "{:,.0f}k"),
            (axes[1], "srv_usec_per_call", "usec_min", "usec_max", 1.0,
             "server µs per call (INFO commandstats; median, whiskers: min..max)",
             "Server time per call (lower is better)", "{:.2f}")):
        v = [summary[n][key] * scale for n in names]
        lo = [summary[n][key] * scale - summary[n][lo_key] * scale for n in names]
        hi = [summary[n][hi_key] * scale - summary[n][key] * scale for n in names]
        ax.barh(y, v, xerr=[lo, hi], color=[COLORS[k] for k in kinds], capsize=2)
        ax.set_yticks(y, names)
        ax.set_xlabel(xlabel)
        ax.set_title(title)
        for yi, vi, h in zip(y, v, hi):
            ax.text(vi + h, yi, "  " + fmt.format(vi), va="center", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    fig.legend(handles=[Patch(color=COLORS[k], label=lbl) for k, lbl in
                        (("core", "core command (ceiling)"), ("native", "winlimit"),
                         ("lua", "Lua script (EVALSHA)"), ("cell", "redis-cell"))], loc="lower center", ncol=4)
    ax = axes[2]
    if memory:
        series = [("SLIDE", "#2b7bba"), ("LUA_SLIDE", "#e08a2c"), ("FIXED", "#7fb3de"), ("LUA_FIXED", "#f2c18d")]
        present = [s for s in series if any(m["contender"] == s[0] for m in memory)]
        width = 0.8 / max(1, len(present))
        for i, (name, col) in enumerate(present):
            xs, vs = [], []
            for j, limit in enumerate(MEMORY_LIMITS):
                for m in memory:
                    if m["contender"] == name and m["limit"] == limit:
                        xs.append(j + (i - (len(present) - 1) / 2) * width)
                        vs.append(m["bytes"])
            ax.bar(xs, vs, width, label=name, color=col)
        ax.set_yscale("log")
        ax.set_xticks(range(len(MEMORY_LIMITS)), [f"{x:,}" for x in MEMORY_LIMITS])
        ax.set_xlabel("limit (key holding a full window)")
        ax.set_ylabel("MEMORY USAGE, bytes (log)")
        ax.set_title("Memory per key")
        ax.legend()
        ax.grid(axis="y", alpha=0.3)
    else:
        ax.set_axis_off()
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --------------------------------------------------------------------------
