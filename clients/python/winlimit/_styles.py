"""The header styles of the middleware (`headers=`): which fields a decision gives, and how
the fields of two middlewares on one request combine. The rules are the clients' shared ones
(clients/spec/header_styles.json)."""

from __future__ import annotations

import math
import time
from typing import Dict, List, Mapping, Optional, Tuple

from ._decision import Decision, ceil_seconds

STYLES = ("draft-11", "draft-7", "legacy", None)
DEFAULT_STYLE = "draft-11"
FIELDS = ("RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
          "Retry-After")


def check_style(style: Optional[str]) -> Optional[str]:
    if style not in STYLES or isinstance(style, bool):
        raise ValueError(f"headers must be one of {STYLES!r}, not {style!r}")
    return style


def fields(decision: Decision, style: Optional[str], now_ms: Optional[float] = None) -> Dict[str, str]:
    """The response fields of `decision` in `style`; `now_ms` (the wall clock, by default)
    dates legacy's X-RateLimit-Reset."""
    draft11 = decision.headers()
    out: Dict[str, str] = {}
    if style == "draft-11":
        out = {k: v for k, v in draft11.items() if k != "Retry-After"}
    elif style is not None:
        policy = decision.policy
        assert policy is not None  # headers() raised otherwise
        reset_ms = decision.reset_after_ms
        if not decision.allowed and decision.retry_after_ms > 0:
            reset_ms = min(reset_ms, decision.retry_after_ms)
        if style == "draft-7":
            out = {"RateLimit-Policy": f"{policy.quota};w={ceil_seconds(policy.window_ms)}",
                   "RateLimit": f"limit={policy.quota}, remaining={decision.remaining}, reset={ceil_seconds(reset_ms)}"}
        else:
            now = time.time() * 1000 if now_ms is None else now_ms
            out = {"X-RateLimit-Limit": str(policy.quota), "X-RateLimit-Remaining": str(decision.remaining),
                   "X-RateLimit-Reset": str(math.ceil((now + reset_ms) / 1000))}
    if "Retry-After" in draft11:
        out["Retry-After"] = draft11["Retry-After"]
    return out


def merged(on: Mapping[str, str], added: Dict[str, str], style: Optional[str]) -> Dict[str, str]:
    """The fields for a response that has `on` (another middleware's, by field name) and gets
    `added`: draft-11 lists both policies; draft-7 and legacy keep the fields of the one with
    the least remaining (`on` on a tie); Retry-After is `on`'s if it has one."""
    if not any(name in on for name in FIELDS):
        return added
    out: Dict[str, str]
    if style == "draft-11":
        out = {k: f"{on[k]}, {added[k]}" if k in on else added[k] for k in ("RateLimit-Policy", "RateLimit")}
    elif style is None:
        out = {k: v for k, v in on.items() if k in FIELDS and k != "Retry-After"}
    else:
        out = {k: v for k, v in (added if _remaining(added, style) < _remaining(on, style) else on).items()
               if k in FIELDS and k != "Retry-After"}
    retry = on.get("Retry-After") or added.get("Retry-After")
    if retry:
        out["Retry-After"] = retry
    return out


def _remaining(fields: Mapping[str, str], style: str) -> int:
    try:
        if style == "legacy":
            return int(fields["X-RateLimit-Remaining"])
        return int(fields["RateLimit"].split("remaining=", 1)[1].split(",", 1)[0])
    except (KeyError, IndexError, ValueError):
        return 2**63  # fields not of this style: any of ours has less


def combined(headers: List[Tuple[str, str]], added: Dict[str, str], style: Optional[str]) -> List[Tuple[str, str]]:
    """A response's header lines with `added` merged in (see `merged`): the rate-limit fields
    another middleware put there are replaced by the merged ones, the rest kept in order."""
    names = {name.lower(): name for name in FIELDS}
    on = {names[k.lower()]: v for k, v in headers if k.lower() in names}
    return [(k, v) for k, v in headers if k.lower() not in names] + list(merged(on, added, style).items())
