"""Real redis-server (or valkey-server) processes for the tests: each on a free loopback
port in its own directory under tests/.tmp/, with winlimit in the kit's edition (the module,
WINLIMIT_MODULE or target/release; or the library, see kit.editions), stopped by PID
(SIGTERM, then SIGKILL), never by name. Clients use
decode_responses=False: keys, values and members are bytes (DUMP needs that).

The server under test is Debian's redis-server unless WINLIMIT_SERVER_BIN (and
WINLIMIT_CLI_BIN for clusters) names another.
"""

import atexit
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import tomllib

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from kit import editions
from kit.ready import READY_TIMEOUT, wait_until

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TMP_ROOT = os.path.join(REPO, "tests", ".tmp")
SERVER_BIN = os.environ.get("WINLIMIT_SERVER_BIN", "redis-server")
CLI_BIN = os.environ.get("WINLIMIT_CLI_BIN", "redis-cli")
# The one version of the module and the client: Cargo.toml's.
with open(os.path.join(REPO, "Cargo.toml"), "rb") as _f:
    CARGO_VERSION = tomllib.load(_f)["package"]["version"]
STOP_TIMEOUT = 10.0

_running = set()


def module_path():
    """Absolute path of the module .so (env WINLIMIT_MODULE overrides); raises if it is missing."""
    path = os.path.abspath(os.environ.get("WINLIMIT_MODULE")
                           or os.path.join(REPO, "target", "release", "libwinlimit.so"))
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"winlimit module not found at {path}: build it with `make build` "
            "(cargo build --release) or set WINLIMIT_MODULE to the .so path")
    return path


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_port_with_bus():
    """A free port p whose cluster bus port p + 10000 is free too (for servers without
    cluster-port, i.e. Redis 6.2)."""
    for _ in range(1000):
        p = random.randrange(20000, 30000)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", p))
                b.bind(("127.0.0.1", p + 10000))
            return p
        except OSError:
            continue
    raise RuntimeError("no free port pair for a cluster node")


class RedisServer:
    """A redis-server child process.

    module: with winlimit, in `edition` (default: the kit's, kit.editions.EDITION): the
    module is loaded at start-up, the library once the server answers (and again after every
    restart; a replica gets Functions from its master); module_args: arguments after the .so
    path;
    args: extra command-line arguments, e.g. ["--appendonly", "yes"] or
    ["--replicaof", "127.0.0.1", "6380"]; dir: reuse this directory (else a fresh one), also
    the server's working directory; config: a configuration file read first (the command
    line's port, bind and dir override it); server_bin: another server than the one under
    test (the bench's --redis-server); launcher: a command the server runs under (valgrind),
    with start_timeout to match.
    """

    def __init__(self, module=True, module_args=(), args=(), dir=None, port=None, config=None, server_bin=None,
                 launcher=(), start_timeout=READY_TIMEOUT, edition=None):
        self.edition = edition or editions.EDITION
        self.server_bin = server_bin or SERVER_BIN
        self.launcher = list(launcher)
        self.start_timeout = start_timeout
        self.config = config
        self.module = module
        self.module_args = list(module_args)
        self.args = list(args)
        os.makedirs(TMP_ROOT, exist_ok=True)
        self.dir = dir or tempfile.mkdtemp(prefix="redis-", dir=TMP_ROOT)
        self.proc = None
        self.port = None
        self.client = None
        self.start(port)

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def _command(self, port):
        cmd = [*self.launcher, self.server_bin, *([self.config] if self.config else []), "--port", str(port), "--bind", "127.0.0.1",
               "--save", "", "--appendonly", "no", "--dir", self.dir,
               "--repl-diskless-sync-delay", "0"]
        if self.module and self.edition == "module":
            cmd += ["--loadmodule", module_path(), *self.module_args]
        return cmd + self.args

    def start(self, port=None):
        """Start (or start again, on the same dir); tries the given port first, then fresh ones."""
        last_error = None
        for attempt in range(5):
            p = port if (port and attempt == 0) else free_port()
            try:
                self._start_on(p)
                return self
            except _PortBusy as e:
                last_error = e
        raise RuntimeError(f"could not start redis-server: {last_error}")

    def _start_on(self, port):
        log_path = os.path.join(self.dir, "redis.log")
        with open(log_path, "ab") as log:
            self.proc = subprocess.Popen(self._command(port), stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        _running.add(self)
        self.port = port
        self.client = self.new_client()
        deadline = time.monotonic() + self.start_timeout
        while True:
            if self.proc.poll() is not None:
                _running.discard(self)
                tail = _tail(log_path)
                self.proc = None
                if "Address already in use" in tail:
                    raise _PortBusy(tail)
                raise RuntimeError(f"redis-server exited at start-up (log {log_path}):\n{tail}")
            try:
                # Check the PID too: on a busy port PING could reach some other server.
                if self.client.ping() and self.client.info("server")["process_id"] == self.proc.pid:
                    self._load_library()
                    return
            except (redis.ConnectionError, redis.BusyLoadingError, redis.TimeoutError):
                pass
            if time.monotonic() > deadline:
                self.stop(keep_dir=True)
                raise RuntimeError(f"redis-server did not answer PING within {self.start_timeout}s "
                                   f"(log {log_path}):\n{_tail(log_path)}")
            time.sleep(0.01)

    def _load_library(self):
        """The library editions: load it, but not into a replica of Functions (FUNCTION LOAD
        is a write; the replica gets the library from its master)."""
        if not self.module or self.edition == "module":
            return
        if self.edition == "functions" and self.client.info("replication")["role"] == "slave":
            return
        editions.load(self.client, self.edition)

    def new_client(self, **kw):
        """A client whose WINLIMIT.* calls reach this server's edition (kit.editions.Redis)."""
        # No retries: a failure must show, not be retried away (and start-up polls fast).
        options = {"decode_responses": False, "socket_timeout": 30, "retry": Retry(NoBackoff(), 0), **kw}
        client = editions.Redis(host="127.0.0.1", port=self.port, **options)
        client.edition = self.edition
        return client

    def stop(self, keep_dir=False):
        """SIGTERM this PID, wait, SIGKILL if it does not exit. Removes the dir unless keep_dir."""
        if self.client is not None:
            self.client.close()
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc = None
        _running.discard(self)
        if not keep_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def restart(self, **changes):
        """Stop and start again on the same dir (same port if still free). changes: module, module_args, args."""
        port = self.port
        self.stop(keep_dir=True)
        for name, value in changes.items():
            setattr(self, name, list(value) if name in ("args", "module_args") else value)
        return self.start(port)

    def wait_replica_synced(self, timeout=READY_TIMEOUT):
        """For a replica: wait until the link to its master is up and the initial sync is done."""
        def synced():
            info = self.client.info("replication")
            return info.get("master_link_status") == "up" and not info.get("master_sync_in_progress")
        wait_until(synced, timeout, what=f"the replica on port {self.port} to sync")


class _PortBusy(Exception):
    pass


def _tail(path, n=30):
    try:
        with open(path, "rb") as f:
            return b"\n".join(f.read().splitlines()[-n:]).decode(errors="replace")
    except OSError:
        return "(no log)"


@atexit.register
def _stop_all():
    for server in list(_running):
        server.stop()


def _server_version():
    out = subprocess.run([SERVER_BIN, "--version"], capture_output=True, text=True).stdout
    version = out.split("v=")[1].split()[0]
    return "Valkey" in out, tuple(int(part) for part in version.split(".")[:3])


# The server under test: (is it Valkey, its version), from its --version.
IS_VALKEY, SERVER_VERSION = _server_version()
# Redis 6 (6.2, and 6.0 below) lacks PEXPIRETIME, module configs, COMMAND DOCS, key specs, ACL selectors,
# cluster-port and enable-debug-command; tests assert what the module does there instead.
REDIS_62 = not IS_VALKEY and SERVER_VERSION < (7, 0)
# Redis 6.0 (Debian 11, Ubuntu 22.04) also lacks SET ... PXAT, GETEX, FAILOVER and the
# absolute-expiry module API: the module replicates SET then PEXPIREAT there.
REDIS_60 = not IS_VALKEY and SERVER_VERSION < (6, 2)


def wait_replica_offset(master, replica, timeout=READY_TIMEOUT):
    """Wait until the replica has processed everything the master has sent."""
    def caught_up():
        sent = master.client.info("replication")["master_repl_offset"]
        return replica.client.info("replication").get("slave_repl_offset") == sent
    wait_until(caught_up, timeout, what="the replica to catch up with the master")
