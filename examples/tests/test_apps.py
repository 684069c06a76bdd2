"""Every example application, started as its README says, against a real Redis with the module
and against one without it (the client loads the Functions library there), drives the seeds'
scenario with a real HTTP client: 3 SMS per hour per user, so 200, 200, 200, then 429 with
Retry-After (the gRPC app: OK, OK, OK, then ResourceExhausted with a RetryInfo, seen by its
own Go client; the gateway app, through its per-hour route to an upstream this module starts).
Each app is started with the one command its README gives. Servers and apps are stopped by PID."""

import contextlib
import http.server
import math
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from kit.server import RedisServer, free_port

EXAMPLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_BIN = os.path.dirname(sys.executable)
READY_TIMEOUT = 60.0  # seconds an app may take to listen (one constant; generous for a loaded CI)
HOUR_S = 3600

APPS = ["express", "fastapi", "flask-limiter", "go-chi", "nestjs", "spring-cloud-gateway", "spring-mvc",
        "spring-webflux"]
GRPC_APPS = ["go-grpc"]  # driven by their own gRPC client
GATEWAY_APPS = ["spring-cloud-gateway"]  # a per-minute route beside the per-hour one
MINUTE_S = 60
README_PORT = "8000"
# The apps whose answers carry winlimit's own header fields (the others, their framework's).
WINLIMIT_HEADERS = {"express", "fastapi", "go-chi", "spring-cloud-gateway"}


class AppURL(str):
    """The app's base URL, knowing which app it is."""

    app: str


def readme_command(folder):
    """The one command the app's README gives (its one code block): (environment, argv)."""
    text = open(os.path.join(EXAMPLES, folder, "README.md")).read()
    blocks = text.split("```")[1::2]
    assert len(blocks) == 1, f"{folder}/README.md has {len(blocks)} code blocks, not the one command"
    words = shlex.split(blocks[0])
    env = dict(word.split("=", 1) for word in words if "=" in word and not word.startswith("-"))
    argv = [word for word in words if word.split("=", 1)[0] not in env]
    return env, argv


def started_as_the_readme_says(folder, redis_url, port, upstream_url):
    """The README's command, with this test's Redis and port for its REDIS_URL and 8000; the
    Python tools from the project's .venv. UPSTREAM_URL is where the gateway app routes (the
    others ignore it)."""
    env, argv = readme_command(folder)
    assert set(env) <= {"REDIS_URL", "PORT"} and "REDIS_URL" in env, env
    env = {**os.environ, **env, "REDIS_URL": redis_url, "UPSTREAM_URL": upstream_url,
           **({"PORT": str(port)} if "PORT" in env else {})}
    argv = [str(port) if word == README_PORT else word for word in argv]
    if os.path.exists(os.path.join(VENV_BIN, argv[0])):
        argv[0] = os.path.join(VENV_BIN, argv[0])
    # A session of its own: `go run` starts the app as a child, and stopping the group by its
    # id stops both.
    return subprocess.Popen(argv, cwd=os.path.join(EXAMPLES, folder), env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.fixture(scope="module", params=["module", "functions"])
def redis_server(request):
    """A server with the module loaded, or a plain one where the client loads the library."""
    server = RedisServer(module=request.param == "module", edition="module")
    yield server
    server.stop()


class UpstreamURL(str):
    """The upstream's base URL, with the paths that reached it."""

    reached: list


class Upstream(http.server.BaseHTTPRequestHandler):
    """The gateway app's upstream: 200 and the path to every GET and POST, each path kept in
    the server's `reached` list."""

    def answer(self):
        self.server.reached.append(self.path)
        body = f"upstream {self.command} {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = answer

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def upstream_url():
    """An HTTP server on a free loopback port, in a thread of this process, for the gateway app."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    server.reached = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = UpstreamURL(f"http://127.0.0.1:{server.server_port}")
    url.reached = server.reached
    yield url
    server.shutdown()
    thread.join()
    server.server_close()


def wait_listening(port, app):
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if app.poll() is not None:
            raise AssertionError(f"the app exited with {app.returncode}: {app.stdout.read()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"the app did not listen on {port} within {READY_TIMEOUT} s")


@contextlib.contextmanager
def running(folder, redis_server, upstream_url):
    """The app started on a flushed server and listening on a free port (yielded), then stopped."""
    redis_server.client.flushall()
    port = free_port()
    app = started_as_the_readme_says(folder, f"redis://127.0.0.1:{redis_server.port}", port, upstream_url)
    try:
        wait_listening(port, app)
        yield port
    finally:
        stop_group(app)


@pytest.fixture(params=APPS)
def app_url(request, redis_server, upstream_url):
    with running(request.param, redis_server, upstream_url) as port:
        url = AppURL(f"http://127.0.0.1:{port}")
        url.app = request.param
        yield url


def stop_group(app):
    """SIGTERM to the app's process group (its id is the app's PID), SIGKILL after 10 s."""
    with contextlib.suppress(ProcessLookupError):  # an app that exited already: its error is raised
        os.killpg(app.pid, signal.SIGTERM)
    try:
        app.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(app.pid, signal.SIGKILL)
        app.wait()
    try:  # a child (go run's) that outlived its parent
        os.killpg(app.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    app.stdout.close()


def test_the_fourth_sms_of_a_user_within_an_hour_is_refused_with_retry_after_and_not_another_users(app_url):
    with httpx.Client(base_url=app_url, timeout=30) as http:
        started = time.monotonic()
        alice = [http.post("/sms/alice") for _ in range(4)]
        elapsed_s = time.monotonic() - started
        bob = http.post("/sms/bob")
    assert [a.status_code for a in alice] == [200, 200, 200, 429], [a.text for a in alice]
    # The first accepted SMS leaves the hour 3600 s after it was sent: in whole seconds, 3600
    # less what has passed since, at most.
    assert HOUR_S - math.ceil(elapsed_s) <= int(alice[3].headers["Retry-After"]) <= HOUR_S
    assert bob.status_code == 200, bob.text
    if app_url.app in WINLIMIT_HEADERS:
        # What the getting-started pages print for the first SMS of the hour.
        assert (alice[0].headers["RateLimit-Policy"], alice[0].headers["RateLimit"]) == \
            ('"winlimit";q=3;w=3600', '"winlimit";r=2;t=3600')


@pytest.fixture(params=GRPC_APPS)
def grpc_addr(request, redis_server, upstream_url):
    with running(request.param, redis_server, upstream_url) as port:
        yield request.param, f"127.0.0.1:{port}"


def grpc_calls(app, user, calls):
    """The example's own gRPC client: one line per call (code, retry=, the rate-limit fields)."""
    folder, addr = app
    out = subprocess.run(["go", "run", "./client", "-addr", addr, "-user", user, "-calls", str(calls)],
                         cwd=os.path.join(EXAMPLES, folder), capture_output=True, text=True, check=True)
    return [dict(field.split("=", 1) for field in line.split()[1:]) | {"code": line.split()[0]}
            for line in out.stdout.splitlines()]


def test_the_fourth_grpc_sms_of_a_user_within_an_hour_is_resource_exhausted_with_retry_info(grpc_addr):
    started = time.monotonic()
    alice = grpc_calls(grpc_addr, "alice", 4)
    elapsed_s = time.monotonic() - started
    bob = grpc_calls(grpc_addr, "bob", 1)
    assert [a["code"] for a in alice] == ["OK", "OK", "OK", "ResourceExhausted"], alice
    assert [a["retry"] for a in alice[:3]] == ["-", "-", "-"], alice
    assert HOUR_S - math.ceil(elapsed_s) <= int(alice[3]["retry"]) <= HOUR_S
    assert bob[0]["code"] == "OK", bob
    assert (alice[0]["ratelimit-policy"], alice[0]["ratelimit"]) == ('"winlimit";q=3;w=3600', '"winlimit";r=2;t=3600')


@pytest.fixture(params=GATEWAY_APPS)
def gateway_url(request, redis_server, upstream_url):
    with running(request.param, redis_server, upstream_url) as port:
        upstream_url.reached.clear()
        yield f"http://127.0.0.1:{port}"


def test_the_sixth_quote_of_a_user_within_a_minute_is_refused_while_the_sms_route_has_room(gateway_url, upstream_url):
    with httpx.Client(base_url=gateway_url, timeout=30) as http:
        started = time.monotonic()
        quotes = [http.get("/quotes/alice") for _ in range(6)]
        elapsed_s = time.monotonic() - started
        sms = http.post("/sms/alice")
    assert [q.status_code for q in quotes] == [200] * 5 + [429], [q.text for q in quotes]
    assert quotes[0].text == "upstream GET /quotes/alice"
    assert (quotes[0].headers["RateLimit-Policy"], quotes[0].headers["RateLimit"]) == \
        ('"winlimit";q=5;w=60', '"winlimit";r=4;t=60')
    # The first quote leaves the minute 60 s after it was asked for: in whole seconds, 60 less
    # what has passed since, at most; the refused one never reaches the upstream.
    retry_after = int(quotes[5].headers["Retry-After"])
    assert MINUTE_S - math.ceil(elapsed_s) <= retry_after <= MINUTE_S
    assert quotes[5].headers["RateLimit"] == f'"winlimit";r=0;t={retry_after}'
    assert upstream_url.reached == ["/quotes/alice"] * 5 + ["/sms/alice"]
    # The per-hour route counts on its own: alice's first SMS of the hour.
    assert sms.status_code == 200, sms.text
    assert (sms.headers["RateLimit-Policy"], sms.headers["RateLimit"]) == ('"winlimit";q=3;w=3600', '"winlimit";r=2;t=3600')
