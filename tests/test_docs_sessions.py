"""The sessions of the site and the READMEs print what they show (found by
scripts/check_snippets.py): each redis-cli session (```console, `$ redis-cli ...` lines) is
replayed with the real redis-cli against a fresh server (with the module, or without it for the
Functions library) and every command's printed output compared line by line; each Python
session (```pycon) runs as a doctest."""

import doctest
import os
import shlex
import subprocess
import sys

import pytest

from kit import editions
from kit.server import CLI_BIN, REDIS_62, REPO

sys.path.insert(0, os.path.join(REPO, "scripts"))
import check_snippets  # noqa: E402  (scripts/ is not a package)

pytestmark = editions.module_only("the sessions call the module's commands by name with redis-cli")

SESSIONS = check_snippets.sessions()


def steps(lines):
    """(argv after `redis-cli`, the lines it prints) for each `$ redis-cli` line."""
    found = []
    for line in lines:
        if line.startswith("$ redis-cli "):
            found.append((shlex.split(line[len("$ redis-cli "):]), []))
        elif line.strip():
            found[-1][1].append(line.rstrip())
    return found


def uses_the_library(lines):
    """A session of the Functions library, for a server without the module (managed Redis)."""
    return any(word in ("FCALL", "FCALL_RO", "FUNCTION") for argv, _ in steps(lines) for word in argv)


def printed(port, argv):
    """What redis-cli prints for one command, formatted as on a terminal (--no-raw), blank
    lines aside (a page's session may leave them out)."""
    stdin = None
    if "<" in argv:  # `< file`: the file, from the repository, on redis-cli's standard input
        stdin = open(os.path.join(REPO, argv[argv.index("<") + 1])).read()
        argv = argv[:argv.index("<")]
    out = subprocess.run([CLI_BIN, "-p", str(port), "--no-raw", *argv], input=stdin, capture_output=True, text=True,
                         timeout=60)
    return [line.rstrip() for line in out.stdout.splitlines() if line.strip()]


def test_the_pages_hold_sessions():
    assert any(page == "README.md" for page, _, _ in SESSIONS)


@pytest.mark.parametrize("page, line, lines", SESSIONS, ids=[f"{p}:{n}" for p, n, _ in SESSIONS])
def test_each_session_prints_what_the_page_shows(start_server, page, line, lines):
    if uses_the_library(lines) and REDIS_62:
        pytest.skip("Redis 6.x has no Functions")
    # A fresh server per session, as a reader starts one: with the module, or for the library without.
    server = start_server(module=not uses_the_library(lines))
    for argv, expected in steps(lines):
        assert printed(server.port, argv) == expected, f"{page}:{line}: redis-cli {shlex.join(argv)}"


PYTHON_SESSIONS = check_snippets.python_sessions()


@pytest.mark.parametrize("page, line, lines", PYTHON_SESSIONS, ids=[f"{p}:{n}" for p, n, _ in PYTHON_SESSIONS])
def test_each_python_session_prints_what_the_page_shows(page, line, lines):
    test = doctest.DocTestParser().get_doctest("\n".join(lines), {}, f"{page}:{line}", page, line)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
