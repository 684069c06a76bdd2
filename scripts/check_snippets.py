"""Every code block in the site (docs/**/*.md), README.md and the clients', services' and
examples' READMEs is run by CI, or this check lists it and fails (make lint). A block is run when it is:

- included from a file CI compiles or runs: a block of `--8<-- "path"` lines (pymdownx.snippets,
  on the site), or a block right after `<!-- snippet: path -->` whose lines stand word for word,
  in order, in that file (on GitHub, where nothing includes); the path one of is_run_path's;
- a Go `Example` function: the same `<!-- snippet: -->` form naming a Go test file;
- a `console` session of `$ redis-cli ...` lines and their printed output, which
  tests/test_docs_sessions.py replays against a real server and compares;
- a `pycon` session (`>>>` lines and what Python prints), which tests/test_docs_sessions.py
  runs as a doctest;
- the one command of an example's README, which examples/tests/test_apps.py starts the app with.

Blocks that change the machine they run on (installing the module or a package) cannot be
replayed by a test, and a few are checked by a test of their own (the source tree): NOT_REPLAYABLE
names each, with what runs or checks the same instead; an entry that matches no block fails.

Run: python3 scripts/check_snippets.py
"""

import pathlib
import re
import sys
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Files whose code blocks must be run.
PAGES = ["README.md", "docs/**/*.md", "clients/*/README.md", "services/*/README.md", "examples/README.md", "examples/*/README.md"]

# Where run code lives: files CI compiles or runs (make examples-test, the test suites, the
# Java consumer app that make itest-java builds and runs, Go's _test.go files with Examples).
RUN_ROOTS = ("examples/", "tests/", "clients/python/tests/", "clients/node/test/", "clients/java/consumer/")
RUN_PARTS = ("/src/test/",)  # a Maven module's tests
RUN_SUFFIXES = ("_test.go",)

# (page, first line of the block): why no test can replay it, and what runs the same steps.
NOT_REPLAYABLE = {
    ("README.md", "sha256sum -c --ignore-missing SHA256SUMS"):
        "installs the module into /usr/lib; packaging/tests/test_dist.py checks SHA256SUMS and unpacks the tarball",
    ("docs/getting-started/module.md", "sha256sum -c --ignore-missing SHA256SUMS     # must print: winlimit-0.4.0-x86_64-linux-gnu.tar.gz: OK"):
        "installs the module into /usr/lib; packaging/tests/test_dist.py checks SHA256SUMS and unpacks the tarball",
    ("docs/getting-started/module.md", "sudo apt install ./winlimit_0.4.0_amd64.deb"):
        "installs a Debian package; packaging/tests/test_deb.py installs it with apt-get and loads it",
    ("docs/getting-started/module.md", "loadmodule /usr/lib/redis/modules/winlimit.so"):
        "a line of redis.conf; packaging/tests/test_deb.py loads the module by it",
    ("docs/getting-started/module.md", "make build       # target/release/libwinlimit.so, for this machine's glibc"):
        "the build itself: make test runs both targets",
    ("clients/python/README.md", "pip install ./clients/python            # the client: depends on redis-py alone"):
        "installs a package; packaging/tests/test_wheel.py installs the wheel and the sdist into fresh virtualenvs",
    ("clients/node/README.md", "npm install ./clients/node        # or the tarball `npm pack` makes there"):
        "installs a package; clients/node/test/package.test.mjs installs the package as npm packs it",
    ("services/ratelimit/README.md", "apiVersion: gateway.envoyproxy.io/v1alpha1"):
        "Kubernetes resources for Envoy Gateway's controller; services/ratelimit/itest/xds_test.go serves rules as the "
        "Gateway's xDS server does, over its mutual TLS, and mapper_test.go applies the Gateway's own Prometheus mapping",
    ("docs/development.md", "src/"):
        "the source tree, not code: src/layout.rs (cargo test) fails when a file under src/ is missing from it or it names one that does not exist",
}

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)(?P<info>[^`]*)$")
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(?P<path>\S+)\s*-->\s*$")
INCLUDE = re.compile(r'^\s*-{1,3}8<-{1,3}\s+"(?P<path>[^"]+)"\s*$')
SNIPPET_SECTION = re.compile(r"--8<-- \[(start|end):[^\]]+\]")


@dataclass
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    info: str
    lines: list
    marker: str | None  # the path of a <!-- snippet: --> right before the block

    @property
    def first(self):
        return next((line.strip() for line in self.lines if line.strip()), "")


def pages():
    seen = set()
    for pattern in PAGES:
        for path in sorted(ROOT.glob(pattern)):
            rel = path.relative_to(ROOT).as_posix()
            if "node_modules" not in rel and rel not in seen:
                seen.add(rel)
                yield rel


def blocks_of(page):
    """The fenced code blocks of a Markdown file, with the snippet marker before each."""
    text = (ROOT / page).read_text().splitlines()
    found, i = [], 0
    while i < len(text):
        opening = FENCE.match(text[i])
        if not opening:
            i += 1
            continue
        before = next((text[j] for j in range(i - 1, -1, -1) if text[j].strip()), "")
        marker = MARKER.match(before)
        end = i + 1
        while end < len(text) and not (text[end].strip().startswith(opening["fence"]) and not text[end].strip().strip(opening["fence"][0])):
            end += 1
        indent = len(opening["indent"])
        lines = [line[indent:] if line[:indent].strip() == "" else line for line in text[i + 1:end]]
        found.append(Block(page, i + 1, opening["info"].strip(), lines, marker["path"] if marker else None))
        i = end + 1
    return found


def dedented(lines):
    body = [line.rstrip() for line in lines]
    width = min((len(line) - len(line.lstrip()) for line in body if line.strip()), default=0)
    return [line[width:] for line in body]


def stands_in(block_lines, path):
    """Whether the block's lines appear in the file in a row, each as a whole line (leading
    indentation aside; snippet section markers skipped)."""
    wanted = [line.strip() for line in dedented(block_lines)]
    source = [line.strip() for line in (ROOT / path).read_text().splitlines() if not SNIPPET_SECTION.search(line)]
    return any(source[i:i + len(wanted)] == wanted for i in range(len(source) - len(wanted) + 1))


def is_run_path(path):
    run = path.startswith(RUN_ROOTS) or any(part in path for part in RUN_PARTS) or path.endswith(RUN_SUFFIXES)
    return run and "node_modules" not in path and (ROOT / path).is_file()


def example_apps():
    """The apps examples/tests/test_apps.py starts by their README's command (its APPS, the
    HTTP ones, and GRPC_APPS)."""
    text = (ROOT / "examples/tests/test_apps.py").read_text()
    lists = re.findall(r"^(?:GRPC_)?APPS = \[(.*?)\]", text, re.M | re.S)
    return [app.strip(' "\n') for apps in lists for app in apps.split(",")]


def is_session(block):
    """A console session of redis-cli commands, each followed by its printed output."""
    commands = [line for line in block.lines if line.startswith("$ ")]
    return block.info == "console" and commands and block.lines[0].startswith("$ ") \
        and all(line.startswith("$ redis-cli ") for line in commands)


def why_unchecked(block, apps):
    """None when CI runs the block, else what is wrong with it."""
    includes = [INCLUDE.match(line) for line in block.lines if line.strip()]
    if includes and all(includes):
        missing = [m["path"].split(":")[0] for m in includes if not is_run_path(m["path"].split(":")[0])]
        return f"includes {', '.join(missing)}, not a file CI runs" if missing else None
    if block.marker:
        if not is_run_path(block.marker):
            return f"its snippet marker names {block.marker}, not a file CI runs"
        return None if stands_in(block.lines, block.marker) else f"differs from {block.marker}"
    if is_session(block) or is_python_session(block):
        return None
    if block.page.startswith("examples/") and block.page.split("/")[1] in apps and block.page.count("/") == 2:
        return None
    if (block.page, block.first) in NOT_REPLAYABLE:
        return None
    return "not included from a file CI runs, not an Example, not a replayed session"


def is_python_session(block):
    """A Python interpreter session: run by doctest, each output compared."""
    return block.info == "pycon" and bool(block.lines) and block.lines[0].startswith(">>> ")


def python_sessions():
    """Every Python session of the checked pages: (page, line, lines)."""
    return [(b.page, b.line, b.lines) for page in pages()
            for b in blocks_of(page) if is_python_session(b)]


def sessions():
    """Every replayable session of the checked pages: (page, line, lines)."""
    return [(b.page, b.line, b.lines) for page in pages()
            for b in blocks_of(page) if is_session(b)]


def main():
    apps = example_apps()
    failures, used = [], set()
    for page in pages():
        for block in blocks_of(page):
            used.add((block.page, block.first))
            problem = why_unchecked(block, apps)
            if problem is not None:
                failures.append(f"{page}:{block.line}: {problem}")
    stale = [f"NOT_REPLAYABLE names no block: {page}: {first!r}" for page, first in NOT_REPLAYABLE if (page, first) not in used]
    for entry in failures + stale:
        print(f"check_snippets: {entry}", file=sys.stderr)
    if failures or stale:
        print(f"check_snippets: {len(failures) + len(stale)} code blocks nothing runs", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
