#!/usr/bin/env python3
"""What failed in a CI log, in a few lines printed last (.ci/run calls it when make fails).

CI keeps only the end of its output, and `make -j --output-sync` prints each suite whole when
it ends, so a failure in one client suite is followed by the other suites' passing output.
This reads the whole log and lists the failed tests of every runner the suites use, then the
make targets that failed: pytest's short summary, node --test's `not ok` with its error, Go's
`--- FAIL`, Surefire's failure list and cargo's `... FAILED`.

Usage: scripts/ci_summary.py LOG
"""

import re
import sys

MAX_TESTS = 12
WIDTH = 220

PYTEST = re.compile(r"^(FAILED|ERROR) \S")
NODE = re.compile(r"^\s*not ok \d+ - (.*)$")
NODE_ERROR = re.compile(r"^\s*error: (.*)$")
GO = re.compile(r"^\s*--- FAIL: \S")
SUREFIRE = re.compile(r"^\[ERROR\]   (?!mvn <args>)\S")
CARGO = re.compile(r"^test \S+ \.\.\. FAILED$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # Maven's colours, even without a terminal
MAKE = re.compile(r"^make(\[\d+\])?: \*\*\* \[([^\]]+)\]")


def node_failure(lines, i, name):
    """A node --test failure with the first line of its error; None for a suite whose only
    error is that its subtests failed (they are listed themselves)."""
    for j in range(i + 1, min(i + 16, len(lines))):
        found = NODE_ERROR.match(lines[j])
        if found:
            error = found.group(1).strip()
            if error in ("|-", "|", ">-") and j + 1 < len(lines):
                error = lines[j + 1].strip()  # a YAML block: the message starts on the next line
            if "subtest" in error and "failed" in error:
                return None
            return f"node: {name.strip()}: {error}"
    return f"node: {name.strip()}"


def failed_tests(lines):
    found = []
    for i, line in enumerate(lines):
        node = NODE.match(line)
        if node:
            entry = node_failure(lines, i, node.group(1))
        elif PYTEST.match(line) or GO.match(line) or SUREFIRE.match(line) or CARGO.match(line):
            entry = line.strip()
        else:
            entry = None
        if entry and entry not in found:
            found.append(entry)
    return found


def failed_targets(lines):
    targets = []
    for line in lines:
        found = MAKE.match(line)
        if found:
            target = found.group(2).split(":")[-1].strip()
            if target not in targets:
                targets.append(target)
    return targets


def summary(lines):
    tests = failed_tests(lines)
    out = ["=== CI failure summary ==="]
    out += [t[:WIDTH] for t in tests[:MAX_TESTS]]
    if len(tests) > MAX_TESTS:
        out.append(f"... and {len(tests) - MAX_TESTS} more failed tests")
    if not tests:
        out.append("no failed test found in the log: a build or setup step failed")
    out.append("failed make targets: " + (", ".join(failed_targets(lines)) or "none found"))
    return out


def main():
    with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
        lines = ANSI.sub("", log.read()).splitlines()
    print("\n".join(summary(lines)))


if __name__ == "__main__":
    main()
