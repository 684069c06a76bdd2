"""Every bound and error text of the module's parsers (clients/spec/limits.json, generated
from the Rust core by cargo test) in the edition under test (WINLIMIT_EDITION): each case's
call on a fresh key gets the module's exact error text, or a reply where the module accepts
it. The clients' memory limiters run the same file (clients/python/tests/test_spec_limits.py,
clients/node/test/spec-limits.test.mjs)."""

import json
import os

import pytest

from kit.errors import error_of

SPEC_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "clients", "spec", "limits.json")
with open(SPEC_PATH, encoding="utf-8") as f:
    SPEC = json.load(f)


@pytest.mark.parametrize("case", SPEC["cases"], ids=[c["name"] for c in SPEC["cases"]])
def test_each_bound_and_error_text_is_the_modules(r, server, case):
    assert error_of(server.port, case["command"], "limits:key", *case["args"]) == case["error"]
