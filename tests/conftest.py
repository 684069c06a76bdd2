"""pytest fixtures: one module-loaded redis-server per test file, flushed before each test."""

import subprocess

import pytest

from kit.fixtures import r, server, start_server
from kit import editions
from kit.server import SERVER_BIN, module_path



def pytest_report_header(config):
    version = subprocess.run([SERVER_BIN, "--version"], capture_output=True, text=True).stdout.strip()
    return f"server under test: {SERVER_BIN}: {version}; winlimit edition: {editions.EDITION}"


def pytest_sessionstart(session):
    """What the edition needs is there: the module's .so, or the library's text."""
    try:
        if editions.LIBRARY:
            editions.script_sha()
        else:
            module_path()
    except (FileNotFoundError, ImportError) as e:
        pytest.exit(f"winlimit edition {editions.EDITION}: {e}", returncode=2)


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
