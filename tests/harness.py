"""Start real redis-server processes for the integration tests.

Each server gets its own free loopback port and its own directory under tests/.tmp/.
Servers are stopped by PID (SIGTERM, then SIGKILL), never by name.
Clients use decode_responses=False: keys, values and members are bytes (DUMP needs that).
"""

import atexit
import collections
import glob
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

import bucket_layout

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP_ROOT = os.path.join(REPO, "tests", ".tmp")
# The server under test: Debian's redis-server by default; WINLIMIT_SERVER_BIN (and
# WINLIMIT_CLI_BIN for cluster set-up) select another, e.g. Valkey (`make test-valkey`).
SERVER_BIN = os.environ.get("WINLIMIT_SERVER_BIN", "redis-server")
CLI_BIN = os.environ.get("WINLIMIT_CLI_BIN", "redis-cli")
# The one version of the module and the client: Cargo.toml's.
with open(os.path.join(REPO, "Cargo.toml"), "rb") as _f:
    CARGO_VERSION = tomllib.load(_f)["package"]["version"]
START_TIMEOUT = 10.0
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

    module: load the winlimit module; module_args: arguments after the .so path;
    args: extra command-line arguments, e.g. ["--appendonly", "yes"] or
    ["--replicaof", "127.0.0.1", "6380"]; dir: reuse this directory (else a fresh one), also
    the server's working directory; config: a configuration file read first (the command
    line's port, bind and dir override it).
    """

    def __init__(self, module=True, module_args=(), args=(), dir=None, port=None, config=None):
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
        cmd = [SERVER_BIN, *([self.config] if self.config else []), "--port", str(port), "--bind", "127.0.0.1",
               "--save", "", "--appendonly", "no", "--dir", self.dir,
               "--repl-diskless-sync-delay", "0"]
        if self.module:
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
        deadline = time.monotonic() + START_TIMEOUT
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
                    return
            except (redis.ConnectionError, redis.BusyLoadingError, redis.TimeoutError):
                pass
            if time.monotonic() > deadline:
                self.stop(keep_dir=True)
                raise RuntimeError(f"redis-server did not answer PING within {START_TIMEOUT}s "
                                   f"(log {log_path}):\n{_tail(log_path)}")
            time.sleep(0.01)

    def new_client(self, **kw):
        # No retries: a failure must show, not be retried away (and start-up polls fast).
        return redis.Redis(host="127.0.0.1", port=self.port, decode_responses=False,
                           socket_timeout=30, retry=Retry(NoBackoff(), 0), **kw)

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

    def wait_replica_synced(self, timeout=START_TIMEOUT):
        """For a replica: wait until the link to its master is up and the initial sync is done."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            info = self.client.info("replication")
            if info.get("master_link_status") == "up" and not info.get("master_sync_in_progress"):
                return
            time.sleep(0.02)
        raise RuntimeError(f"replica on port {self.port} did not sync: {self.client.info('replication')}")


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


# ---- helpers for tests ----

def server_ms(client):
    """The server clock in ms (TIME)."""
    sec, usec = client.time()
    return sec * 1000 + usec // 1000


def expiry_slack(window_ms):
    """How much longer than its newest entry's window a sliding log's key may live
    (README: the expiry moves once per slack, not on every call)."""
    return min(window_ms // 8, 60000)


# A bucketed log's bytes: tests/bucket_layout.py.
bucket_ring = bucket_layout.encode


def bucket_log(client, key):
    """The bucketed key `key` decoded (bucket_layout.decode); it must be one."""
    log = bucket_layout.decode(client.get(key))
    assert log is not None, client.get(key)
    return log


def _server_version():
    out = subprocess.run([SERVER_BIN, "--version"], capture_output=True, text=True).stdout
    version = out.split("v=")[1].split()[0]
    return "Valkey" in out, tuple(int(part) for part in version.split(".")[:3])


# The server under test: (is it Valkey, its version), from its --version.
IS_VALKEY, SERVER_VERSION = _server_version()
# Redis 6.2 lacks PEXPIRETIME, module configs, COMMAND DOCS, key specs, ACL selectors,
# cluster-port and enable-debug-command; tests assert what the module does there instead.
REDIS_62 = not IS_VALKEY and SERVER_VERSION < (7, 0)


def pexpiretime(client, key):
    """The key's absolute expiry in ms (-1: none, -2: no key), exactly. Redis 6.2 has no
    PEXPIRETIME: there PTTL is read between two TIMEs (run in order, as one pipeline),
    retried until both fall in the same millisecond, so the sum is the stored absolute time."""
    if not REDIS_62:
        return client.execute_command("PEXPIRETIME", key)
    for _ in range(100):
        tx = client.pipeline(transaction=False)
        tx.time().pttl(key).time()
        before, ttl, after = tx.execute()
        ms = before[0] * 1000 + before[1] // 1000
        if ms == after[0] * 1000 + after[1] // 1000:
            return ttl if ttl < 0 else ms + ttl
    raise AssertionError("the clock never held still for one transaction")


def snapshot(client, dump=False):
    """The whole keyspace: key -> (type, value, pexpiretime[, DUMP]).

    value: string -> bytes, zset -> tuple of (member, score), list -> tuple,
    hash -> sorted tuple of items, set -> sorted tuple.
    """
    out = {}
    for key in client.scan_iter(count=1000):
        kind = client.type(key).decode()
        if kind == "string":
            value = client.get(key)
        elif kind == "zset":
            value = tuple(client.zrange(key, 0, -1, withscores=True))
        elif kind == "list":
            value = tuple(client.lrange(key, 0, -1))
        elif kind == "hash":
            value = tuple(sorted(client.hgetall(key).items()))
        elif kind == "set":
            value = tuple(sorted(client.smembers(key)))
        elif kind == "none":  # expired between SCAN and TYPE (or a replica's logically expired key)
            continue
        else:
            value = client.dump(key)
        entry = (kind, value, pexpiretime(client, key))
        out[key] = entry + (client.dump(key),) if dump else entry
    return out


def error_of(port, *args):
    """Send one command over a raw socket; return the exact error text it replies ("ERR ...")
    or None when the reply is not an error. redis-py rewrites error texts, this does not."""
    parts = [a if isinstance(a, bytes) else str(a).encode() for a in args]
    payload = b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(payload)
        f = s.makefile("rb")
        line = f.readline()
    if not line.endswith(b"\r\n"):
        raise ConnectionError(f"incomplete reply {line!r}")
    return line[1:-2].decode() if line.startswith(b"-") else None


Reply = collections.namedtuple("Reply", "allowed limit remaining retry_after reset_after")


def call(client, command, *args):
    """WINLIMIT.<command> args... (command e.g. "slide", "fixed_ro") -> Reply."""
    return Reply._make(client.execute_command("WINLIMIT." + command.upper(), *args))


def wait_replica_offset(master, replica, timeout=START_TIMEOUT):
    """Wait until the replica has processed everything the master has sent."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sent = master.client.info("replication")["master_repl_offset"]
        if replica.client.info("replication").get("slave_repl_offset") == sent:
            return
        time.sleep(0.01)
    raise RuntimeError("replica did not catch up with the master")


def _aof_paths(server):
    return sorted(glob.glob(os.path.join(server.dir, "appendonlydir", "*.incr.aof"))) \
        or glob.glob(os.path.join(server.dir, "appendonly.aof"))


def aof_bytes(server):
    """Bytes in the server's AOF files (the incremental ones since Redis 7.0)."""
    return sum(os.path.getsize(p) for p in _aof_paths(server))


def aof_commands(server, since):
    """The names (upper case) of the commands appended to the AOF after its first `since`
    bytes (as aof_bytes counted them), in order, MULTI and EXEC included."""
    data = b"".join(open(p, "rb").read() for p in _aof_paths(server))[since:]
    names, i = [], 0
    while i < len(data):
        assert data[i:i + 1] == b"*", data[i:i + 20]
        end = data.index(b"\r\n", i)
        argc, i = int(data[i + 1:end]), end + 2
        for j in range(argc):
            end = data.index(b"\r\n", i)
            length = int(data[i + 1:end])
            if j == 0:
                names.append(data[end + 2:end + 2 + length].decode().upper())
            i = end + 2 + length + 2
    return names
