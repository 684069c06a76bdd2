"""dist/: what `make dist` writes, each file checked as an operator would use it."""

import os
import subprocess
import tarfile

from kit.lua_library import library_text
from kit.server import REPO, RedisServer


CHECK_SO_DEPS = os.path.join(REPO, "scripts", "check-so-deps.sh")


def names_in(folder):
    return sorted(os.listdir(folder))


def test_dist_holds_the_tarball_the_deb_the_wheel_the_sdist_and_the_sums(dist, version):
    assert names_in(dist) == sorted([
        "SHA256SUMS",
        f"winlimit-{version}-x86_64-linux-gnu.tar.gz",
        f"winlimit_{version}_amd64.deb",
        f"winlimit-{version}.lua",
        f"winlimit-{version}-py3-none-any.whl",
        f"winlimit-{version}.tar.gz",
        f"winlimit-ratelimit-{version}-linux-amd64",
    ])


def test_the_rate_limit_service_is_one_static_binary_that_runs(dist, version):
    binary = os.path.join(dist, f"winlimit-ratelimit-{version}-linux-amd64")
    with open(binary, "rb") as f:
        elf = f.read()
    assert elf[:4] == b"\x7fELF" and b"/lib64/ld-linux" not in elf  # no dynamic loader asked for
    # With no configuration folder it refuses to start and says where it looked.
    out = subprocess.run([binary], env={"RUNTIME_ROOT": "/nonexistent", "USE_STATSD": "false"},
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "/nonexistent/config" in out.stderr


def test_sha256sum_checks_every_other_file(dist):
    out = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=dist, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    checked = sorted(line.rsplit(": ", 1)[0] for line in out.stdout.splitlines())
    assert checked == [name for name in names_in(dist) if name != "SHA256SUMS"]
    assert all(line.endswith(": OK") for line in out.stdout.splitlines())


def test_a_changed_byte_fails_the_check(dist, tmp_path):
    for name in names_in(dist):
        (tmp_path / name).write_bytes((open(os.path.join(dist, name), "rb")).read())
    wheel = next(p for p in tmp_path.iterdir() if p.suffix == ".whl")
    data = bytearray(wheel.read_bytes())
    data[-1] ^= 1
    wheel.write_bytes(bytes(data))
    out = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode != 0 and f"{wheel.name}: FAILED" in out.stdout


def unpack_tarball(dist, version, into):
    with tarfile.open(os.path.join(dist, f"winlimit-{version}-x86_64-linux-gnu.tar.gz")) as tar:
        tar.extractall(into, filter="data")
    return into / f"winlimit-{version}"


def test_the_tarball_is_one_folder_with_the_module_and_its_docs(dist, version, tmp_path):
    folder = unpack_tarball(dist, version, tmp_path)
    assert names_in(tmp_path) == [f"winlimit-{version}"]
    assert names_in(folder) == sorted(["libwinlimit.so", "README.md", "LICENSE", "CHANGELOG.md",
                                       "redis.conf.example", "winlimit.lua"])
    assert (folder / "winlimit.lua").read_text() == library_text()
    assert (folder / "LICENSE").read_text().startswith("MIT License")
    assert f"## [{version}]" in (folder / "CHANGELOG.md").read_text()


def test_the_released_so_has_no_debug_info(dist, version, tmp_path):
    so = unpack_tarball(dist, version, tmp_path) / "libwinlimit.so"
    sections = subprocess.run(["readelf", "-S", "-W", so], capture_output=True, text=True, check=True).stdout
    assert ".dynsym" in sections and ".debug_info" not in sections


def test_the_released_so_needs_nothing_newer_than_glibc_2_17(dist, version, tmp_path):
    so = unpack_tarball(dist, version, tmp_path) / "libwinlimit.so"
    out = subprocess.run([CHECK_SO_DEPS, so, "2.17"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_the_glibc_check_refuses_a_newer_symbol(dist, version, tmp_path):
    """The check itself can fail: against a baseline older than what the .so needs."""
    so = unpack_tarball(dist, version, tmp_path) / "libwinlimit.so"
    out = subprocess.run([CHECK_SO_DEPS, so, "2.3"], capture_output=True, text=True)
    assert out.returncode != 0 and "newer than the GLIBC_2.3 baseline" in out.stderr


def test_the_tarball_example_config_loads_the_so_beside_it(dist, version, tmp_path):
    folder = unpack_tarball(dist, version, tmp_path)
    # As an operator runs it: inside the folder, where `loadmodule ./libwinlimit.so` points.
    server = RedisServer(module=False, config=str(folder / "redis.conf.example"), dir=str(folder))
    try:
        r = server.client
        assert r.execute_command("WINLIMIT.SLIDE", "k", 60000, 3) == [1, 3, 2, 0, 60000]
    finally:
        server.stop()


def test_dist_carries_the_library_that_a_server_without_the_module_loads(dist, version):
    """winlimit-VERSION.lua is lua/winlimit.lua; FUNCTION LOAD takes it, and it answers."""
    path = os.path.join(dist, f"winlimit-{version}.lua")
    text = open(path).read()
    assert text == library_text()
    server = RedisServer(module=False)
    try:
        r = server.client
        assert r.execute_command("FUNCTION", "LOAD", "REPLACE", text) == b"winlimit"
        assert r.fcall("winlimit_version", 0) == version.encode()
        assert r.fcall("winlimit_slide", 1, "k", 60000, 3) == [1, 3, 2, 0, 60000]
    finally:
        server.stop()
