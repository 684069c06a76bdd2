"""A rate-limit decision, and the HTTP header fields it maps to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Sequence, Tuple


def _seconds(ms: int) -> int:
    """Whole seconds, rounded up."""
    return -(-ms // 1000)


@dataclass(frozen=True)
class Decision:
    """The five fields every winlimit command replies, by name, and the policy they came from.

    `limit`, `remaining` and `reset_after_ms` describe the binding pair of the call (see the
    module's README); `policies` lists every (window_ms, limit) the call checked.
    """

    allowed: bool
    limit: int
    remaining: int
    retry_after_ms: int
    reset_after_ms: int
    policies: Tuple[Tuple[int, int], ...] = ()
    name: str = "winlimit"

    @classmethod
    def from_reply(cls, reply: Sequence[int], policies: Sequence[Tuple[int, int]], name: str) -> "Decision":
        allowed, limit, remaining, retry_after_ms, reset_after_ms = (int(x) for x in reply)
        return cls(bool(allowed), limit, remaining, retry_after_ms, reset_after_ms, tuple(policies), name)

    @property
    def window_ms(self) -> int:
        """The binding pair's window: the longest checked window whose limit is `limit`."""
        windows = [w for w, limit in self.policies if limit == self.limit]
        return max(windows) if windows else max((w for w, _ in self.policies), default=0)

    def headers(self) -> Dict[str, str]:
        """`RateLimit-Policy` and `RateLimit` as draft-ietf-httpapi-ratelimit-headers defines
        them (Structured Field lists; seconds rounded up), and `Retry-After` when rejected and
        a retry can succeed (whole seconds, rounded up, at least 1)."""
        policy = ", ".join(f'"{self._policy_name(w)}";q={limit};w={_seconds(w)}' for w, limit in self.policies)
        out = {
            "RateLimit-Policy": policy,
            "RateLimit": f'"{self._policy_name(self.window_ms)}";r={self.remaining};t={_seconds(self.reset_after_ms)}',
        }
        if not self.allowed and self.retry_after_ms > 0:
            out["Retry-After"] = str(max(1, _seconds(self.retry_after_ms)))
        return out

    def _policy_name(self, window_ms: int) -> str:
        return self.name if len(self.policies) == 1 else f"{self.name}-{_seconds(window_ms)}s"
