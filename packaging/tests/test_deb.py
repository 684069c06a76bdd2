"""The Debian package, installed for real with apt-get, loaded into Debian's redis-server by
the line its example gives, then removed again. Needs root (as CI runs) and the Debian
redis-server that scripts/install-deps.sh installs."""

import os
import re
import shutil
import subprocess

import pytest

from kit.server import RedisServer, SERVER_BIN


MODULE = "/usr/lib/redis/modules/winlimit.so"
DOC = "/usr/share/doc/winlimit"
LIBRARY = "/usr/share/winlimit/winlimit.lua"
FILES = [MODULE, f"{DOC}/README.md", f"{DOC}/changelog.gz", f"{DOC}/copyright",
         f"{DOC}/examples/winlimit.conf", LIBRARY]


def deb_of(dist, version):
    return os.path.join(dist, f"winlimit_{version}_amd64.deb")


def run(*command):
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def installed():
    out = subprocess.run(["dpkg-query", "-W", "-f=${Status}", "winlimit"], capture_output=True, text=True)
    return out.stdout == "install ok installed"


@pytest.fixture(scope="module")
def package(dist, version):
    """The package installed by apt-get for the module's tests; removed after them."""
    if os.geteuid() != 0:
        pytest.fail("installing the .deb needs root (CI runs as root)")
    if installed():
        pytest.fail("a winlimit package is installed already: remove it (apt-get remove winlimit) first")
    run("apt-get", "install", "-y", "--no-install-recommends", deb_of(dist, version))
    yield
    if installed():
        run("apt-get", "remove", "-y", "winlimit")


def test_the_package_declares_its_name_version_and_dependencies(dist, version):
    fields = {f: run("dpkg-deb", "-f", deb_of(dist, version), f).strip()
              for f in ("Package", "Version", "Architecture", "Depends", "Recommends")}
    assert fields == {"Package": "winlimit", "Version": version, "Architecture": "amd64",
                      "Depends": "libc6 (>= 2.17)", "Recommends": "redis-server | valkey-server"}


def test_the_package_touches_no_server_configuration(dist, version):
    contents = run("dpkg-deb", "-c", deb_of(dist, version))
    assert "/etc/" not in contents
    control = run("dpkg-deb", "-I", deb_of(dist, version))
    assert not re.search(r"\b(postinst|preinst|postrm|prerm|conffiles)\b", control)


def test_apt_installs_the_module_and_its_docs(package):
    assert installed()
    assert [path for path in FILES if not os.path.isfile(path)] == []


def test_the_example_names_the_loadmodule_line_and_every_setting(package):
    example = open(f"{DOC}/examples/winlimit.conf").read()
    assert f"# loadmodule {MODULE}" in example.splitlines()
    settings = {line.split()[1] for line in example.splitlines() if line.startswith("# winlimit.")}
    assert settings == {"winlimit.max-limit", "winlimit.cell-compat"}


@pytest.fixture
def debian_redis(package, tmp_path):
    """Debian's redis-server with the example's lines uncommented (and CL.THROTTLE on)."""
    if shutil.which("redis-server") != "/usr/bin/redis-server" or SERVER_BIN != "redis-server":
        pytest.fail("this test runs Debian's /usr/bin/redis-server (WINLIMIT_SERVER_BIN unset)")
    lines = open(f"{DOC}/examples/winlimit.conf").read().splitlines()
    wanted = {f"# loadmodule {MODULE}": f"loadmodule {MODULE}",
              "# winlimit.cell-compat no": "winlimit.cell-compat yes",
              "# winlimit.max-limit 10000": "winlimit.max-limit 5000"}
    conf = tmp_path / "redis.conf"
    conf.write_text("\n".join(wanted.get(line, line) for line in lines) + "\n")
    server = RedisServer(module=False, config=str(conf))
    yield server.client
    server.stop()


def test_debian_redis_loads_the_installed_module(debian_redis, version):
    [module] = [m for m in debian_redis.module_list() if m[b"name"] == b"winlimit"]
    major, minor, patch = map(int, version.split("."))
    assert module[b"ver"] == major * 10000 + minor * 100 + patch
    assert debian_redis.info("winlimit")["winlimit_version"] == version
    assert debian_redis.config_get("winlimit.max-limit") == {"winlimit.max-limit": "5000"}


@pytest.mark.parametrize("command, args, reply", [
    ("WINLIMIT.SLIDE", ["s", 60000, 3], [1, 3, 2, 0, 60000]),
    ("WINLIMIT.SLIDE_RO", ["s2", 60000, 3], [1, 3, 3, 0, 0]),
    ("WINLIMIT.FIXED", ["f", 60000, 3], [1, 3, 2, 0, 60000]),
    ("WINLIMIT.FIXED_RO", ["f2", 60000, 3], [1, 3, 3, 0, 0]),
    ("WINLIMIT.GCRA", ["g", 60000, 3], [1, 3, 2, 0, 20000]),
    ("WINLIMIT.GCRA_RO", ["g2", 60000, 3], [1, 3, 3, 0, 0]),
    ("CL.THROTTLE", ["c", 2, 3, 60], [0, 3, 2, -1, 20]),
])
def test_every_command_answers_on_debian_redis(debian_redis, command, args, reply):
    assert debian_redis.execute_command(command, *args) == reply


def test_a_bucketed_window_answers_on_debian_redis(debian_redis):
    """Its reset counts to the end of the bucket the unit was recorded in."""
    *head, reset_after_ms = debian_redis.execute_command("WINLIMIT.SLIDE", "b", 60000, 3, "BUCKET", 1000)
    assert head == [1, 3, 2, 0] and 60000 <= reset_after_ms <= 61000


def test_debian_redis_loads_the_installed_library_without_the_module(package, version):
    """As README has it: redis-cli -x FUNCTION LOAD REPLACE < /usr/share/winlimit/winlimit.lua."""
    server = RedisServer(module=False)
    try:
        with open(LIBRARY, "rb") as f:
            loaded = subprocess.run(["redis-cli", "-p", str(server.port), "-x", "FUNCTION", "LOAD", "REPLACE"],
                                    stdin=f, capture_output=True, text=True, check=True)
        assert loaded.stdout.strip() == "winlimit"
        assert server.client.fcall("winlimit_version", 0) == version.encode()
        assert server.client.fcall("winlimit_gcra", 1, "g", 60000, 3) == [1, 3, 2, 0, 20000]
    finally:
        server.stop()


def test_apt_removes_every_file_again(dist, version, package):
    run("apt-get", "remove", "-y", "winlimit")
    assert not installed()
    assert [path for path in FILES if os.path.exists(path)] == []
