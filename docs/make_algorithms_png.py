#!/usr/bin/env python3
"""Draw docs/algorithms.png from real calls: one request trace (steady traffic, then a
burst across a window boundary, "3 at 1:59 and 3 at 2:01") sent through FIXED, FIXED ALIGN,
SLIDE, SLIDE BUCKET and GCRA on a server started here, 3 per hour each, with an hour
compressed to 2 seconds. Run from the repository root: .venv/bin/python docs/make_algorithms_png.py
"""

import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))

import harness  # noqa: E402
import winlimit  # noqa: E402

HOUR = 2000  # ms: the compressed hour
LIMIT = 3
# Request times in ms after an aligned hour boundary: steady traffic in the first hour,
# quiet, a burst just before the next boundary (1:59) and just after it (2:01), then more.
TRACE = [100, 700, 1300, 3820, 3870, 3920, 4080, 4130, 4180, 5000, 5600]

ALGORITHMS = [
    ("FIXED (from 1st request)", lambda lim, key: lim.fixed(key, HOUR, LIMIT)),
    ("FIXED ALIGN", lambda lim, key: lim.fixed(key, HOUR, LIMIT, align=True)),
    ("SLIDE (exact log)", lambda lim, key: lim.slide(key, HOUR, LIMIT)),
    ("SLIDE BUCKET", lambda lim, key: lim.slide(key, HOUR, LIMIT, bucket=HOUR // 20)),
    ("GCRA (BURST 3)", lambda lim, key: lim.gcra(key, HOUR, LIMIT)),
]


def run_trace(r):
    """Send the trace through every algorithm at the same instants; returns the decisions."""
    limiter = winlimit.Limiter(r)
    now = harness.server_ms(r)
    start = (now // HOUR + 1) * HOUR  # the next aligned hour boundary
    results = {name: [] for name, _ in ALGORITHMS}
    for at in TRACE:
        while harness.server_ms(r) < start + at:
            time.sleep(0.001)
        for i, (name, call) in enumerate(ALGORITHMS):
            results[name].append(call(limiter, f"trace:{i}").allowed)
    return results


def draw(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = [t / HOUR * 60 for t in TRACE]
    fig, ax = plt.subplots(figsize=(10, 3.6))
    for row, (name, _) in enumerate(ALGORITHMS):
        y = len(ALGORITHMS) - 1 - row
        for m, ok in zip(minutes, results[name]):
            ax.plot(m, y, "o" if ok else "x", color="#2b8a3e" if ok else "#c92a2a", markersize=6, mew=2)
        accepted = sum(results[name])
        ax.text(202, y, f"{accepted} accepted", va="center", fontsize=9)
    for boundary in (60, 120):
        ax.axvline(boundary, color="#888", lw=1, ls="--")
    ax.set_yticks(range(len(ALGORITHMS)), [name for name, _ in reversed(ALGORITHMS)])
    ax.set_xlim(-2, 225)
    ticks = [0, 30, 60, 90, 120, 150, 180]
    ax.set_xticks(ticks, [f"{t // 60}:{t % 60:02d}" for t in ticks])
    ax.annotate("3 just before 2:00, 3 just after", xy=(120, len(ALGORITHMS) - 0.55), xytext=(128, len(ALGORITHMS) - 0.3),
                fontsize=8, arrowprops={"arrowstyle": "->", "color": "#555"})
    ax.set_ylim(-0.6, len(ALGORITHMS) - 0.1)
    ax.set_xlabel("time (h:mm; an hour compressed to 2 s of real calls)")
    ax.set_title("3 per hour: the same requests through each algorithm (o accepted, x rejected)")
    ax.grid(axis="x", alpha=0.2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    server = harness.RedisServer()
    try:
        results = run_trace(server.client)
    finally:
        server.stop()
    for name, _ in ALGORITHMS:
        print(f"{name:<20} " + " ".join("o" if ok else "x" for ok in results[name]))
    draw(results, os.path.join(REPO, "docs", "algorithms.png"))
    print("wrote docs/algorithms.png")


if __name__ == "__main__":
    main()
