"""scripts/ci_summary.py, which .ci/run prints when make fails: every runner's failed tests
and the failed make targets, one rule per test."""

import os
import sys

from kit.server import REPO

sys.path.insert(0, os.path.join(REPO, "scripts"))
from ci_summary import summary  # noqa: E402  (scripts/ is not a package)


def test_pytest_failures_are_listed_with_their_message():
    log = ["FAILED clients/python/tests/test_x.py::test_y - assert 1 == 2", "1 failed, 3 passed"]
    assert "FAILED clients/python/tests/test_x.py::test_y - assert 1 == 2" in summary(log)


def test_a_node_failure_is_listed_with_its_error_and_its_parent_suite_is_not():
    log = [
        "    not ok 3 - a burst of 10",
        "      ---",
        "      error: 'Expected values to be strictly equal'",
        "not ok 1 - guide",
        "  ---",
        "  error: '1 subtest failed'",
    ]
    assert summary(log)[1:-1] == ["node: a burst of 10: 'Expected values to be strictly equal'"]


def test_go_surefire_and_cargo_failures_are_listed():
    log = [
        "    --- FAIL: TestBreakerOpens (0.20s)",
        "[ERROR]   MvcMiddlewareSpecTest.cases:88 expected 1 line",
        "test core::slide::tests::edge ... FAILED",
    ]
    assert summary(log)[1:-1] == [line.strip() for line in log]


def test_the_failed_make_targets_come_last_once_each():
    log = [
        "make[1]: *** [Makefile:123: itest-node] Error 1",
        "make[1]: *** [Makefile:123: itest-node] Error 1",
        "make: *** [Makefile:40: itest-clients] Error 2",
    ]
    assert summary(log)[-1] == "failed make targets: itest-node, itest-clients"


def test_a_failure_without_a_failed_test_says_a_step_failed():
    assert "no failed test found" in summary(["make: *** [Makefile:9: deps] Error 1"])[1]


def test_a_node_error_written_as_a_yaml_block_is_read_from_its_next_line():
    log = [
        "    not ok 7 - the breaker opens",
        "      ---",
        "      error: |-",
        "        Expected values to be strictly equal:",
    ]
    assert summary(log)[1] == "node: the breaker opens: Expected values to be strictly equal:"
