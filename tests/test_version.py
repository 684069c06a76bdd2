"""One version for the module and the Python client: Cargo.toml's, as MODULE LIST encodes
it and as the client and its installed metadata say it."""

import importlib.metadata

import winlimit

from kit import editions
from kit.server import CARGO_VERSION


def encoded(version):
    major, minor, patch = (int(part) for part in version.split("."))
    return major * 10000 + minor * 100 + patch


@editions.module_only("MODULE LIST lists the module; the library says its version with winlimit_version")
def test_module_list_reports_the_cargo_version_encoded(r):
    [module] = [m for m in r.module_list() if m[b"name"] == b"winlimit"]
    assert module[b"ver"] == encoded(CARGO_VERSION)


def test_the_client_says_the_cargo_version():
    assert winlimit.__version__ == CARGO_VERSION


def test_the_installed_client_metadata_says_the_cargo_version():
    assert importlib.metadata.version("winlimit") == CARGO_VERSION
