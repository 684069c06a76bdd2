"""The shadow-mode cases every client shares (clients/spec/shadow.json): what is let through,
counted and warned about, and the quiet periods, on a clock the test sets. The Node client's
tests read the same file (clients/node/test/spec-shadow.test.mjs)."""

import logging

import pytest

import winlimit
from winlimit._options import MiddlewareOptions
from winlimit._shadow import ShadowLog
from winlimit._verdict import Judge

from shared_spec import build, ids, load

SPEC = load("shadow.json")


@pytest.mark.parametrize("case", SPEC["cases"], ids=ids(SPEC["cases"]))
def test_shadow_mode_follows_the_shared_case(case, caplog):
    caplog.set_level(logging.WARNING, logger="winlimit")
    now = [0.0]
    options = MiddlewareOptions(check=lambda limiter, key: None, shadow=True)
    guard = Judge(options, ShadowLog(case["log_keys"], lambda: now[0]))
    for step in case["steps"]:
        now[0] = step["at_ms"]
        caplog.clear()
        call = build(case["call"], key=step["key"])
        verdict = guard.judged(step["key"], winlimit.Decision.from_reply(step["reply"], call.policies))
        assert verdict.status == 200 and "Retry-After" not in verdict.headers
        if "fields" in step:
            assert verdict.headers == step["fields"]
        warned = [r.getMessage() for r in caplog.records if r.name == "winlimit" and r.levelno == logging.WARNING]
        assert warned == ([] if step["warning"] is None else [step["warning"]]), step
    assert guard.shadow_rejections == case["counted"]
