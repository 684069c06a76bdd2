"""Start a real Redis Cluster on loopback: N masters, each a RedisServer (so each is
stopped by PID, never by name), joined with `redis-cli --cluster create`.

Each node gets an explicit --cluster-port (a free port): the default bus port, port + 10000,
is often above 65535 for the ephemeral ports free_port() hands out.
"""

import subprocess
import time

import redis

from kit import editions
from kit.ready import READY_TIMEOUT
from kit.server import RedisServer, free_port, CLI_BIN, REDIS_62, free_port_with_bus


class Cluster:
    def __init__(self, masters=3, module=True, module_args=()):
        self.nodes = []
        try:
            for _ in range(masters):
                # Redis 6.2 has no cluster-port: its bus is port + 10000, so both must be free.
                port = free_port_with_bus() if REDIS_62 else None
                bus = [] if REDIS_62 else ["--cluster-port", str(free_port())]
                self.nodes.append(RedisServer(module=module, module_args=module_args, port=port, args=[
                    "--cluster-enabled", "yes", *bus, "--cluster-node-timeout", "5000",
                ]))
            addrs = [f"127.0.0.1:{n.port}" for n in self.nodes]
            done = subprocess.run(
                [CLI_BIN, "--cluster", "create", *addrs, "--cluster-replicas", "0", "--cluster-yes"],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
            if done.returncode != 0:
                raise RuntimeError("redis-cli --cluster create failed:\n"
                                   + done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace"))
            self.wait_ready()
        except BaseException:
            self.stop()
            raise

    def wait_ready(self, timeout=READY_TIMEOUT):
        """Until every node says cluster_state:ok and all agree on who serves every slot."""
        deadline = time.monotonic() + timeout
        while True:
            views = []
            try:
                ok = all(n.client.cluster("info")["cluster_state"] == "ok" for n in self.nodes)
                views = [self.slot_owners(n) for n in self.nodes]
            except redis.RedisError:
                ok = False
            if ok and all(v == views[0] for v in views) and len(views[0]) == 16384:
                return
            if time.monotonic() > deadline:
                raise RuntimeError("cluster did not become ready")
            time.sleep(0.05)

    @staticmethod
    def slot_owners(node):
        """slot -> port of the master serving it, as `node` sees it."""
        owners = {}
        for start, end, master, *_ in node.client.execute_command("CLUSTER SLOTS"):
            for slot in range(start, end + 1):
                owners[slot] = master[1]
        return owners

    def node_id(self, node):
        return node.client.execute_command("CLUSTER MYID").decode()

    def node_on_port(self, port):
        return next(n for n in self.nodes if n.port == port)

    def owner(self, slot):
        """The node serving `slot`, per the first node."""
        return self.node_on_port(self.slot_owners(self.nodes[0])[slot])

    def client(self, **kw):
        """A cluster-aware client, configured as a user would: one startup node, nothing else."""
        return editions.Cluster(host="127.0.0.1", port=self.nodes[0].port, decode_responses=False,
                            socket_timeout=30, **kw)

    def migrate_slot_keys(self, slot, src, dst):
        """First half of a slot migration: src MIGRATING, dst IMPORTING, keys moved to dst.
        Until finish_slot_migration, src answers -ASK for keys it no longer holds."""
        src_id, dst_id = self.node_id(src), self.node_id(dst)
        dst.client.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", src_id)
        src.client.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", dst_id)
        while True:
            keys = src.client.execute_command("CLUSTER GETKEYSINSLOT", slot, 100)
            if not keys:
                break
            src.client.execute_command("MIGRATE", "127.0.0.1", dst.port, "", 0, 5000, "KEYS", *keys)

    def finish_slot_migration(self, slot, dst):
        """Second half: every master is told dst serves the slot (the old owner then answers -MOVED)."""
        dst_id = self.node_id(dst)
        dst.client.execute_command("CLUSTER SETSLOT", slot, "NODE", dst_id)
        for n in self.nodes:
            if n is not dst:
                n.client.execute_command("CLUSTER SETSLOT", slot, "NODE", dst_id)
        self.wait_ready()

    def stop(self):
        for n in reversed(self.nodes):
            n.stop()

