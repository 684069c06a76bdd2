"""The worst single calls at the default settings."""

from __future__ import annotations

import statistics
import time
from typing import Callable

import redis

from winbench.contenders import now_ms


def max_limit(r: redis.Redis) -> int:
    try:
        return int(r.config_get("winlimit.max-limit")["winlimit.max-limit"])
    except (redis.ResponseError, KeyError):  # Redis 6.2: no module configs; the error names it
        try:
            r.execute_command("WINLIMIT.SLIDE", "probe", 1000, 10**12)
        except redis.ResponseError as e:
            return int(str(e).rsplit(" ", 1)[1])
        finally:
            r.delete("probe")
    return 10_000


WORST_REPS = 5


def main_thread_cpu_us(r: redis.Redis) -> float:
    cpu = r.info("cpu")
    return (float(cpu.get("used_cpu_user_main_thread", 0)) + float(cpu.get("used_cpu_sys_main_thread", 0))) * 1e6


def measure_worst_case(r: redis.Redis, missing: dict) -> list[dict]:
    """The longest single calls at default settings. Each case is called WORST_REPS times;
    its figure is the median SLOWLOG duration (slowlog-log-slower-than 0): durations are wall
    time, so on a shared machine one call now and then is preempted and takes several times
    its work (the longest is reported too, with the server main thread's CPU time around the
    call, which preemption does not inflate)."""
    r.flushall(asynchronous=False)
    r.config_set("slowlog-log-slower-than", 0)
    r.config_set("slowlog-max-len", 128)
    cases = WorstCases(r, missing)
    cases.exact_log()
    cases.bucketed_log()
    cases.constant_state()
    r.config_set("slowlog-log-slower-than", 10000)
    r.config_set("slowlog-max-len", 128)
    r.flushall(asynchronous=False)
    return cases.rows


class WorstCases:
    """The cases, each measured into `rows`."""

    def __init__(self, r: redis.Redis, missing: dict):
        self.r = r
        self.missing = missing
        self.M = max_limit(r)
        self.rows: list[dict] = []
        self.bucket_units: int | None = None

    def timed(self, argv: list) -> tuple[int, float, list]:
        """One call's SLOWLOG duration, the main thread's CPU time around it, and its reply."""
        r = self.r
        r.slowlog_reset()
        cpu0 = main_thread_cpu_us(r)
        reply = r.execute_command(*argv)
        cpu1 = main_thread_cpu_us(r)
        name = str(argv[0]).upper().encode()
        took = [e["duration"] for e in r.slowlog_get(128) if e["command"].split(b" ", 1)[0].upper() == name]
        return max(took), cpu1 - cpu0, reply

    def case(self, label: str, command: str, prepare: Callable[[int], list],
             check: Callable[[list], bool] = lambda reply: True) -> None:
        """Measures `prepare(i)`'s call WORST_REPS times; its reply must pass `check`."""
        if command in self.missing:
            self.rows.append({"call": label, "usec": None, "status": self.missing[command]})
            return
        try:
            usecs, cpus = [], []
            for i in range(WORST_REPS):
                argv = prepare(i)
                us, cpu, reply = self.timed(argv)
                if not check(reply):
                    raise RuntimeError(f"unexpected reply {reply} to {' '.join(map(str, argv))[:80]}")
                usecs.append(us)
                cpus.append(cpu)
            self.rows.append({"call": label, "max_limit": self.M, "usec": statistics.median(usecs),
                              "usec_max": max(usecs), "usecs": usecs, "cpu_usec": round(statistics.median(cpus)),
                              "reply": reply, "argv": " ".join(map(str, argv))[:200]})
        except redis.ResponseError as e:
            self.rows.append({"call": label, "usec": None, "status": f"n/a ({str(e)[:80]})"})

    def exact_log(self) -> None:
        M = self.M
        self.case(f"SLIDE COST {M:,} (the default max-limit) on a fresh key", "WINLIMIT.SLIDE",
                  lambda i: ["WINLIMIT.SLIDE", f"w:fresh:{i}", 60000, M, "COST", M], lambda x: x[0] == 1)
        pairs = [w for ms in (1000, 2000, 5000, 10000, 20000, 30000, 45000, 60000) for w in (ms, M)]
        self.case(f"SLIDE with 8 windows, COST {M:,}, on a fresh key", "WINLIMIT.SLIDE",
                  lambda i: ["WINLIMIT.SLIDE", f"w:fresh8:{i}", *pairs, "COST", M], lambda x: x[0] == 1)
        self.case(f"first SLIDE after a full log of {M:,} left the window (before the key expired)",
                  "WINLIMIT.SLIDE", self.left_window, lambda x: x[0] == 1 and x[2] == M - 1)
        self.case(f"SLIDE on a log of {M:,} whose oldest fifth left the window (a batch trim)", "WINLIMIT.SLIDE",
                  self.part_left, lambda x: x[0] == 1)
        for cost in (M // 2, M):
            self.case(f"rejected SLIDE COST {cost:,} on a full log of {M:,} distinct times (computes retry_after)",
                      "WINLIMIT.SLIDE", lambda i, cost=cost: self.full(i, cost), lambda x: x[0] == 0 and x[3] > 0)

    def left_window(self, i: int) -> list:
        """Logs of M entries recorded by the module, called again once they all left the
        window but before the keys expired (the expiry slack): the call finds nothing counts.
        The first repetition fills every key and waits once."""
        r, window = self.r, 2000
        if i == 0:
            for k in range(WORST_REPS):
                r.execute_command("WINLIMIT.SLIDE", f"w:leave:{k}", window, self.M, "COST", self.M)
            recorded = now_ms(r)  # every entry is at or before this; the keys expire a slack later
            time.sleep(max(0, recorded + window + 10 - now_ms(r)) / 1000)
        if r.pttl(f"w:leave:{i}") < 0:
            raise redis.ResponseError("the key expired before the call")
        return ["WINLIMIT.SLIDE", f"w:leave:{i}", window, self.M]

    def prefill(self, key: str, first: int, last: int, window: int) -> None:
        """M entries in the module's member format, scores spread from first to last."""
        M = self.M
        step = (last - first) / max(1, M - 1)
        for start in range(0, M, 1000):
            self.r.zadd(key, {str(1_000_000_000 + i): first + int(i * step) for i in range(start, min(start + 1000, M))})
        self.r.pexpireat(key, last + window + min(window // 8, 60000))

    def part_left(self, i: int) -> list:
        now = now_ms(self.r)
        self.prefill(f"w:trim:{i}", now - 75000, now - 1, 60000)  # a fifth left the window
        return ["WINLIMIT.SLIDE", f"w:trim:{i}", 60000, self.M]

    def full(self, i: int, cost: int) -> list:
        if i == 0:  # a rejection records nothing: one log serves every repetition
            now = now_ms(self.r)
            self.prefill(f"w:full:{cost}", now - 59000, now - 1, 60000)
        return ["WINLIMIT.SLIDE", f"w:full:{cost}", 60000, self.M, "COST", cost]

    def bucketed_log(self) -> None:
        self.case("SLIDE BUCKET 60 COST 10^12 on a fresh key (1,000 buckets)", "WINLIMIT.SLIDE",
                  lambda i: ["WINLIMIT.SLIDE", f"w:bucket:{i}", 60000, 10**12, "BUCKET", 60, "COST", 10**12],
                  lambda x: x[0] == 1)
        for half in (True, False):
            self.case(f"rejected SLIDE BUCKET 1 COST {'half of ' if half else ''}what 1,001 full buckets hold "
                      f"(computes retry_after)", "WINLIMIT.SLIDE",
                      lambda i, half=half: self.bucket_full(half), lambda x: x[0] == 0 and x[3] > 0)

    def bucket_full(self, half: bool) -> list:
        """1,001 buckets of 1 ms filled by real calls for 1.1 s (once); then a COST that needs
        the newest (or the middle) bucket to leave."""
        key = "w:bkfull"
        if self.bucket_units is None:
            end = time.monotonic() + 1.1
            reply = None
            while time.monotonic() < end:
                pipe = self.r.pipeline(transaction=False)
                for _ in range(20):
                    pipe.execute_command("WINLIMIT.SLIDE", key, 1000, 10**12, "BUCKET", 1)
                reply = pipe.execute()[-1]
            self.bucket_units = 10**12 - int(reply[2])
        counted = self.bucket_units
        return ["WINLIMIT.SLIDE", key, 1000, counted, "BUCKET", 1, "COST", counted // 2 if half else counted]

    def constant_state(self) -> None:
        self.case("GCRA COST 10^12", "WINLIMIT.GCRA",
                  lambda i: ["WINLIMIT.GCRA", f"w:gcra:{i}", 10**12, 10**12, "COST", 10**12], lambda x: x[0] == 1)
        self.case("FIXED COST 10^12", "WINLIMIT.FIXED",
                  lambda i: ["WINLIMIT.FIXED", f"w:fixed:{i}", 60000, 10**12, "COST", 10**12], lambda x: x[0] == 1)
