"""scripts/check_snippets.py, which make lint runs, fails on a code block nothing runs and
passes one that CI runs: the rules of what counts, one per test."""

import os
import sys

from kit.server import REPO

sys.path.insert(0, os.path.join(REPO, "scripts"))
import check_snippets  # noqa: E402  (scripts/ is not a package)
from check_snippets import Block, why_unchecked  # noqa: E402

APPS = check_snippets.example_apps()


def block(lines, info="", marker=None, page="docs/page.md"):
    return Block(page, 1, info, lines, marker)


def test_a_block_of_code_that_nothing_runs_is_listed():
    assert why_unchecked(block(["limiter.slide(key, 60_000, 100)"], "python"), APPS) is not None


def test_a_block_that_includes_an_example_passes():
    assert why_unchecked(block(['--8<-- "examples/fastapi/app.py:limit"'], "python"), APPS) is None


def test_a_block_that_includes_a_file_no_test_runs_is_listed():
    assert "not a file CI runs" in why_unchecked(block(['--8<-- "clients/python/winlimit/asgi.py"'], "python"), APPS)


def test_a_marked_block_passes_only_while_it_stands_word_for_word_in_its_file():
    lines = ['@app.post("/sms/{user}", dependencies=[Depends(three_per_hour)])', "async def send_sms(user: str) -> dict[str, str]:"]
    assert why_unchecked(block(lines, "python", "examples/fastapi/app.py"), APPS) is None
    assert "differs" in why_unchecked(block(lines[:1] + ["async def send(user):"], "python", "examples/fastapi/app.py"), APPS)


def test_a_redis_cli_console_session_passes_and_another_shell_session_is_listed():
    assert why_unchecked(block(["$ redis-cli PING", "PONG"], "console"), APPS) is None
    assert why_unchecked(block(["$ curl localhost:8000", "ok"], "console"), APPS) is not None


def test_every_page_passes_the_check_today():
    assert check_snippets.main() == 0


def test_an_unchecked_block_fails_the_check_on_the_pages_it_once_spared(monkeypatch, capsys):
    # These four were allowed unchecked blocks while issue 47 landed; no page is any more.
    pages = ["docs/guides/python.md", "docs/guides/node.md", "clients/go/README.md", "clients/java/README.md"]
    unrun = {page: block(["limiter.slide(key, 60_000, 100)"], "python", page=page) for page in pages}
    monkeypatch.setattr(check_snippets, "pages", lambda: iter(pages))
    monkeypatch.setattr(check_snippets, "blocks_of", lambda page: [unrun[page]])
    monkeypatch.setattr(check_snippets, "NOT_REPLAYABLE", {})
    assert check_snippets.main() == 1
    err = capsys.readouterr().err
    assert all(f"{page}:1: not included from a file CI runs" in err for page in pages)
