"""pytest fixtures: one module-loaded redis-server per test file, flushed before each test."""

import subprocess

import pytest

import harness
from fixtures import r, server, start_server  # noqa: F401  (fixtures shared with clients/python)


def pytest_report_header(config):
    version = subprocess.run([harness.SERVER_BIN, "--version"], capture_output=True, text=True).stdout.strip()
    return f"server under test: {harness.SERVER_BIN}: {version}"


def pytest_sessionstart(session):
    try:
        harness.module_path()
    except FileNotFoundError as e:
        pytest.exit(str(e), returncode=2)


@pytest.fixture
def master_replica(start_server):
    """A module-loaded master and a module-loaded replica, in sync."""
    master = start_server()
    replica = start_server(args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    yield master, replica
    # The old master first: after FAILOVER it is the replica, and a master stopped while a
    # replica is attached waits (up to shutdown-timeout) for it to acknowledge.
    master.stop()
