#!/usr/bin/env python3
"""Draw docs/algorithms.png from real calls (`make docs`).

One request trace, "3 per hour" for every algorithm, sent through FIXED, FIXED ALIGN, SLIDE,
SLIDE ... BUCKET and GCRA on a redis-server with the module, started here by the test harness:
steady traffic, a quiet spell, the burst across an hour boundary ("3 at 1:59 and 3 at 2:01"),
then steady traffic again. Time is compressed: an hour is HOUR_MS of real time, so the run
takes seconds; the axis is labelled in the compressed hours, and in real seconds on top.

Each request of the trace is sent to every algorithm (a key each) at the same server time.
The verdicts hang on margins of a compressed minute (33 ms); a run in which any request went
out more than LATE_MS late is discarded and run again.

Run from the repository root: .venv/bin/python docs/make_algorithms_png.py [out.png]
"""

import os
import sys
import time

import winlimit

from kit.keyspace import server_ms
from kit.server import IS_VALKEY, REPO, RedisServer

HOUR_MS = 2000  # one compressed hour
MINUTE_MS = HOUR_MS / 60
LIMIT = 3
BUCKET_MS = HOUR_MS // 20  # 3 compressed minutes
LATE_MS = 10
ATTEMPTS = 3

# Request times in compressed minutes after an hour boundary.
TRACE = [10, 30, 50,                    # steady: one every 20 minutes, the limit's own pace
         117, 118, 119, 121, 122, 123,  # 3 at 1:57-1:59 and 3 at 2:01-2:03
         140, 160, 178, 200, 220]       # steady again (2:58: just after 1:57 + an hour)

ALGORITHMS = [
    ("FIXED", "window from its first request",
     lambda lim, key: lim.fixed(key, HOUR_MS, LIMIT)),
    ("FIXED ALIGN", "windows on the hour",
     lambda lim, key: lim.fixed(key, HOUR_MS, LIMIT, align=True)),
    ("SLIDE", "exact log",
     lambda lim, key: lim.slide(key, HOUR_MS, LIMIT)),
    ("SLIDE BUCKET", "3-minute buckets",
     lambda lim, key: lim.slide(key, HOUR_MS, LIMIT, bucket=BUCKET_MS)),
    ("GCRA", "BURST 3, +1 every 20 min",
     lambda lim, key: lim.gcra(key, HOUR_MS, LIMIT)),
]


def run_trace(client, attempt):
    """Send the trace through every algorithm; returns ({name: [allowed, ...]}, worst lateness ms)."""
    limiter = winlimit.Limiter(client)
    start = (server_ms(client) // HOUR_MS + 1) * HOUR_MS  # the next (aligned) hour
    results = {name: [] for name, _, _ in ALGORITHMS}
    worst = 0.0
    for minute in TRACE:
        due = start + minute * MINUTE_MS
        while server_ms(client) < due:
            time.sleep(0.0005)
        worst = max(worst, server_ms(client) - due)
        for i, (name, _, call) in enumerate(ALGORITHMS):
            results[name].append(call(limiter, f"trace:{attempt}:{i}").allowed)
        worst = max(worst, server_ms(client) - due)
    return results, worst


def hm(minute):
    return f"{int(minute) // 60}:{int(minute) % 60:02d}"


def draw(results, path, server_name):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok_style = {"marker": "o", "color": "#2b8a3e", "markersize": 7, "linestyle": "none"}
    no_style = {"marker": "x", "color": "#c92a2a", "markersize": 7, "mew": 2, "linestyle": "none"}
    fig, (ax, zoom) = plt.subplots(1, 2, figsize=(11.5, 3.9), sharey=True,
                                   gridspec_kw={"width_ratios": [3.2, 1.2], "wspace": 0.04})
    rows = len(ALGORITHMS)
    for row, (name, _, _) in enumerate(ALGORITHMS):
        y = rows - 1 - row
        for a in (ax, zoom):
            a.plot([m for m, ok in zip(TRACE, results[name]) if ok], [y] * sum(results[name]), **ok_style)
            a.plot([m for m, ok in zip(TRACE, results[name]) if not ok], [y] * (len(TRACE) - sum(results[name])),
                   **no_style)
        zoom.text(131, y, f"{sum(results[name])}/{len(TRACE)}", va="center", fontsize=9)
    for a in (ax, zoom):
        for boundary in (60, 120, 180, 240):
            a.axvline(boundary, color="#888", lw=1, ls="--", zorder=0)
        a.grid(axis="x", alpha=0.2)
    ax.set_yticks(range(rows), [f"{name}\n{note}" for name, note, _ in reversed(ALGORITHMS)], fontsize=8.5)
    ax.set_ylim(-0.6, rows - 0.4)
    ax.set_xlim(0, 240)
    ax.set_xticks(range(0, 241, 30), [hm(m) for m in range(0, 241, 30)])
    ax.axvspan(114, 126, color="#fff3bf", zorder=-1)
    ax.set_xlabel(f"time (h:mm), an hour compressed to {HOUR_MS / 1000:g} s of real calls")
    top = ax.secondary_xaxis("top", functions=(lambda m: m * MINUTE_MS / 1000, lambda s: s * 1000 / MINUTE_MS))
    top.set_xlabel("real time of the run (s)", fontsize=8)
    top.tick_params(labelsize=8)
    zoom.set_xlim(114, 136)
    zoom.set_facecolor("#fffbe6")
    zoom.set_xticks([117, 120, 123], [hm(m) for m in (117, 120, 123)], fontsize=8)
    zoom.set_title("the burst: 1:57-1:59, 2:01-2:03", fontsize=9)
    zoom.set_xlabel("accepted / sent", fontsize=8, loc="right")
    fig.suptitle("3 per hour: the same requests through each algorithm (o accepted, x rejected)", fontsize=11)
    fig.text(0.005, 0.01, f"drawn by docs/make_algorithms_png.py from real calls on {server_name}", fontsize=7,
             color="#666")
    y_of = {name: rows - 1 - row for row, (name, _, _) in enumerate(ALGORITHMS)}
    note = {"fontsize": 7.5, "color": "#444", "arrowprops": {"arrowstyle": "->", "color": "#777", "lw": 0.8}}
    ax.annotate("6 within 6 minutes", xy=(123, y_of["FIXED ALIGN"] + 0.1), xytext=(132, y_of["FIXED ALIGN"] + 0.38),
                **note)
    ax.annotate("the 1:57-2:00 bucket counts until 2:59", xy=(178, y_of["SLIDE BUCKET"] + 0.1),
                xytext=(150, y_of["SLIDE BUCKET"] + 0.4), **note)
    fig.subplots_adjust(left=0.175, right=0.99, top=0.80, bottom=0.16)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "docs", "algorithms.png")
    server = RedisServer()
    try:
        info = server.client.info("server")
        server_name = f"{'Valkey' if IS_VALKEY else 'Redis'} {info.get('redis_version', '?')}"
        for attempt in range(ATTEMPTS):
            results, worst = run_trace(server.client, attempt)
            if worst <= LATE_MS:
                break
            print(f"a request went out {worst:.0f} ms late (over {LATE_MS}): running the trace again")
        else:
            sys.exit(f"every run had a request over {LATE_MS} ms late: the machine is too busy to draw this")
    finally:
        server.stop()
    print(f"{'':<14}" + " ".join(f"{hm(m):>4}" for m in TRACE))
    for name, _, _ in ALGORITHMS:
        print(f"{name:<14}" + " ".join(f"{'o' if ok else 'x':>4}" for ok in results[name]))
    draw(results, out, server_name)
    print(f"wrote {os.path.relpath(out)} (worst lateness {worst:.0f} ms)")


if __name__ == "__main__":
    main()
