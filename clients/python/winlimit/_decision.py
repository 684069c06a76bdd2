"""A rate-limit decision, the policies it was checked against, and the HTTP header fields of
draft-ietf-httpapi-ratelimit-headers (revision 11) they map to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple


def ceil_seconds(ms: int) -> int:
    """Whole seconds, rounded up (the draft's fields carry no fractions; rounding down would
    tell a client to come back too early)."""
    return -(-ms // 1000)


def sf_string(value: str) -> str:
    """`value` serialised as a Structured Field String (RFC 9651, section 4.1.6): printable
    ASCII only, with `"` and `\\` escaped. Raises ValueError for anything else."""
    for ch in value:
        if not 0x20 <= ord(ch) <= 0x7E:
            raise ValueError(f"a policy name must be printable ASCII, not {value!r}")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class Policy:
    """One quota policy as `RateLimit-Policy` announces it: `quota` units per `window_ms`.

    For the windows, a (window_ms, limit) pair of the call. For GCRA, the bucket: `quota` is
    its capacity (`BURST`) and `window_ms` the time it takes to refill from empty
    (`BURST * period_ms / limit`, rounded up), so `quota / window` is the long-run rate.
    """

    name: str
    quota: int
    window_ms: int


@dataclass(frozen=True)
class Decision:
    """The five fields every winlimit command replies, by name, and the policies of the call.

    `limit`, `remaining` and `reset_after_ms` describe the binding pair of the call (for
    several windows: see docs/reference/replies-and-errors.md, "Reply"); `policies` lists every policy the call
    checked, and `policy` is the binding one. `waited_ms` is how long a call with `wait=`
    slept in all before this decision (0 when it did not wait); `cached` is true when a
    limiter with `cache_rejections=True` answered the call locally, without Redis.
    `backend` says which edition of winlimit answered: "module", "functions" (the library,
    by FCALL) or "scripts" (EVALSHA).
    """

    allowed: bool
    limit: int
    remaining: int
    retry_after_ms: int
    reset_after_ms: int
    policies: Tuple[Policy, ...] = ()
    waited_ms: int = 0
    cached: bool = False
    backend: str = "module"

    @classmethod
    def from_reply(cls, reply: Sequence[int], policies: Sequence[Policy], backend: str = "module") -> "Decision":
        """A decision from the command's five-integer reply, answered by `backend`."""
        if len(reply) != 5:
            raise ValueError(f"a winlimit reply has five integers, not {reply!r}")
        allowed, limit, remaining, retry_after_ms, reset_after_ms = (int(x) for x in reply)
        return cls(allowed == 1, limit, remaining, retry_after_ms, reset_after_ms, tuple(policies),
                   backend=backend)

    @property
    def policy(self) -> Optional[Policy]:
        """The binding policy: the one whose quota is the reply's `limit`; of several, the
        longest window (the module's tie rule: with equal limits the longer window always has
        the least room, or the same)."""
        matching = [p for p in self.policies if p.quota == self.limit]
        return max(matching, key=lambda p: p.window_ms) if matching else None

    @property
    def window_ms(self) -> Optional[int]:
        """The binding policy's window in ms (None if the decision has no policies)."""
        policy = self.policy
        return policy.window_ms if policy else None

    def headers(self) -> Dict[str, str]:
        """The response header fields for this decision.

        - `RateLimit-Policy`: every policy of the call, `"<name>";q=<quota>;w=<window s>`.
        - `RateLimit`: the binding policy, `"<name>";r=<remaining>;t=<reset s>`.
        - `Retry-After`, when rejected and a retry can succeed: whole seconds, rounded up,
          at least 1. The draft says it should not end before the effective window `t`, so
          `t` is then at most `Retry-After`.

        Seconds are rounded up. Raises ValueError for a decision without policies.
        """
        policy = self.policy
        if policy is None:
            raise ValueError("this decision has no policy whose quota is its limit "
                             f"({self.limit}): {self.policies!r}")
        reset = ceil_seconds(self.reset_after_ms)
        out = {
            "RateLimit-Policy": ", ".join(
                f"{sf_string(p.name)};q={p.quota};w={ceil_seconds(p.window_ms)}" for p in self.policies),
        }
        if not self.allowed and self.retry_after_ms > 0:
            retry = max(1, ceil_seconds(self.retry_after_ms))
            out["RateLimit"] = f"{sf_string(policy.name)};r={self.remaining};t={min(reset, retry)}"
            out["Retry-After"] = str(retry)
        else:
            out["RateLimit"] = f"{sf_string(policy.name)};r={self.remaining};t={reset}"
        return out
