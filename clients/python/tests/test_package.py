"""The package as pip installs it: a wheel built from clients/python holds the typed package
and depends on redis-py alone (Starlette only with the asgi extra), and the code passes
mypy --strict, as does code that hands it redis-py's clients."""

import email
import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(PACKAGE))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy, so setuptools leaves its build/ and egg-info/ there, not in the tree.
    source = out / "source"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    # No build isolation: setuptools and wheel come from the .venv (requirements.txt), so the
    # build needs no network.
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(out), str(source)], check=True, capture_output=True)
    [path] = out.glob("winlimit-*.whl")
    return zipfile.ZipFile(path)


def test_the_wheel_holds_the_package_marked_typed(wheel):
    names = set(wheel.namelist())
    assert {"winlimit/__init__.py", "winlimit/asyncio.py", "winlimit/asgi.py", "winlimit/_commands.py",
            "winlimit/_decision.py", "winlimit/py.typed"} <= names
    assert not any(name.startswith("tests/") for name in names)


def test_the_wheel_carries_the_library_and_its_script_as_lua_holds_them(wheel):
    # Built from lua/winlimit.lua by scripts/embed-lua.py, the script by scripts/build-lua.py's rule.
    with open(os.path.join(REPO, "lua", "winlimit.lua"), encoding="utf-8") as f:
        library = f.read()
    assert wheel.read("winlimit/lua/winlimit.lua").decode() == library
    assert wheel.read("winlimit/lua/winlimit-script.lua").decode() == _script_from(library)


def _script_from(library):
    spec = importlib.util.spec_from_file_location("build_lua", os.path.join(REPO, "scripts", "build-lua.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.script_from(library)


def test_the_wheel_depends_on_redis_alone_starlette_with_asgi_prometheus_with_metrics_and_limits_with_limits(wheel):
    [metadata] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    requires = email.message_from_bytes(wheel.read(metadata)).get_all("Requires-Dist")
    core = [req for req in requires if "extra ==" not in req]
    extra = [req for req in requires if "extra ==" in req]
    assert [req.split(">")[0].strip() for req in core] == ["redis"]
    assert [(req.split(">")[0].strip(), req.split("extra ==")[1].strip()) for req in sorted(extra)] == [
        ("limits", '"limits"'), ("prometheus-client", '"metrics"'), ("starlette", '"asgi"')]


USER_CODE = '''
import redis, redis.asyncio, redis.cluster, redis.asyncio.cluster
import winlimit, winlimit.asyncio
from winlimit.asgi import RateLimit, RateLimitMiddleware

def sync_calls() -> int:
    limiter = winlimit.Limiter(redis.Redis())
    cluster = winlimit.Limiter(redis.cluster.RedisCluster(host="127.0.0.1", port=7000))
    d: winlimit.Decision = limiter.slide("k", [(1000, 10), (60000, 100)], bucket=100)
    headers: dict[str, str] = cluster.gcra("k", 60000, 10, burst=3).headers()
    return d.remaining + len(headers)

def middleware_options() -> bool:
    from starlette.requests import Request
    from starlette.responses import JSONResponse

    async def by_tier(lim: winlimit.asyncio.Limiter, key: str, request: Request) -> winlimit.Decision:
        return await lim.fixed(key, 60000, 1000 if request.headers.get("x-tier") == "paid" else 100)

    def too_many(request: Request, d: winlimit.Decision) -> JSONResponse:
        return JSONResponse({"retry_after_ms": d.retry_after_ms}, status_code=429)

    limiter = winlimit.asyncio.Limiter(redis.asyncio.Redis())
    RateLimit(limiter, by_tier, headers="legacy", ipv6_subnet=56, on_reject=too_many, timeout=0.5)
    return winlimit.Limiter(redis.Redis()).reset(winlimit.ip_key("2001:db8::1"))

async def async_calls() -> bool:
    limiter = winlimit.asyncio.Limiter(redis.asyncio.Redis())
    cluster = winlimit.asyncio.Limiter(redis.asyncio.cluster.RedisCluster(host="127.0.0.1", port=7000))
    RateLimit(limiter, lambda lim, key: lim.fixed(key, 1000, 1))
    return (await limiter.fixed("k", 1000, 1, align=True)).allowed and (await cluster.slide("k", 1, 1)).allowed

def memory_fallback() -> bool:
    import winlimit.memory
    fallback = winlimit.memory.Limiter(max_keys=10_000, clock=lambda: 1_700_000_000_000)
    RateLimit(winlimit.asyncio.Limiter(redis.asyncio.Redis()), lambda lim, key: lim.fixed(key, 1000, 1),
              fallback=fallback)
    return fallback.gcra("k", 1000, 10, burst=3, peek=True).backend == "memory" and len(fallback) == 0
'''


def test_the_package_and_code_using_it_pass_mypy_strict(tmp_path):
    user = tmp_path / "user_code.py"
    user.write_text(USER_CODE)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", os.path.join(REPO, ".mypy_cache"),
         os.path.join(PACKAGE, "winlimit"), str(user)],
        capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
