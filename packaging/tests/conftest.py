"""Fixtures for the release checks: dist/ as `make dist` wrote it."""

import os

import pytest

from harness import CARGO_VERSION, REPO

DIST = os.path.join(REPO, "dist")


@pytest.fixture(scope="session")
def dist():
    """The dist/ folder; the run stops when `make dist` has not written it."""
    if not os.path.isfile(os.path.join(DIST, "SHA256SUMS")):
        pytest.exit(f"{DIST}/SHA256SUMS is missing: run `make dist` first", returncode=2)
    return DIST


@pytest.fixture(scope="session")
def version():
    return CARGO_VERSION
