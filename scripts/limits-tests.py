#!/usr/bin/env python3
"""Runs `limits`' own storage and strategy tests (sync and limits.aio) against winlimit's
storage: the pinned sdist (requirements.txt) is downloaded into .cache/ (never committed),
its tests are copied into a scratch folder with clients/python/tests/upstream/limits_conftest.py
as their conftest, and pytest runs there. limits' tests time themselves by sleeping on the
wall clock (limits' own CI reruns them), so a failed case is rerun up to twice; an expected
difference (xfail, strict) is not rerun. Extra arguments go to pytest."""

import os
import re
import shutil
import subprocess
import sys
import tarfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(REPO, ".cache", "limits-sdist")
RUN = os.path.join(REPO, ".cache", "limits-tests")
TESTS = ["__init__.py", "utils.py", "test_storage.py", "test_strategy.py",
         "aio/__init__.py", "aio/test_storage.py", "aio/test_strategy.py"]
PYTEST_INI = """[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
markers =
    redis: redis tests
    redis_sentinel: redis sentinel tests
    redis_cluster: redis cluster tests
    memory: in memory tests
    mongodb: mongodb tests
    memcached: memcached tests
    valkey: valkey tests
    valkey_cluster: valkey cluster tests
    benchmark: benchmarks
    flaky: limits' retried cases (run once here)
"""


def pinned_version():
    with open(os.path.join(REPO, "requirements.txt"), encoding="utf-8") as f:
        return re.search(r"^limits==(\S+)$", f.read(), re.M).group(1)


def sdist(version):
    """The extracted sdist's folder, downloaded once."""
    folder = os.path.join(CACHE, f"limits-{version}")
    if not os.path.isdir(folder):
        os.makedirs(CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--no-binary", ":all:", f"limits=={version}", "-d", CACHE], check=True)
        with tarfile.open(os.path.join(CACHE, f"limits-{version}.tar.gz")) as tar:
            tar.extractall(CACHE, filter="data")
    return folder


def main():
    source = sdist(pinned_version())
    shutil.rmtree(RUN, ignore_errors=True)
    for name in TESTS:
        os.makedirs(os.path.dirname(os.path.join(RUN, "tests", name)), exist_ok=True)
        shutil.copy(os.path.join(source, "tests", name), os.path.join(RUN, "tests", name))
    shutil.copy(os.path.join(REPO, "clients", "python", "tests", "upstream", "limits_conftest.py"),
                os.path.join(RUN, "tests", "conftest.py"))
    with open(os.path.join(RUN, "pytest.ini"), "w", encoding="utf-8") as f:
        f.write(PYTEST_INI)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([RUN, os.path.join(REPO, "tests")])}
    tests = [os.path.join("tests", name) for name in TESTS if os.path.basename(name).startswith("test_")]
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--reruns", "2", *tests, *sys.argv[1:]],
                          cwd=RUN, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
