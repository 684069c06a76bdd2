// Real redis-server processes for the tests: each on a free loopback port with its own
// directory, stopped by PID (SIGTERM, then SIGKILL), never by name; a 3-master cluster made
// with the cli's `--cluster create`, as the repository's tests/cluster.py does.
//
// WINLIMIT_SERVER_BIN and WINLIMIT_CLI_BIN choose the server and the cli (default
// redis-server and redis-cli on PATH); WINLIMIT_MODULE the module (default the repository's
// target/release/libwinlimit.so).

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "redis";
import { READY_TIMEOUT_MS } from "./ready.mjs";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
export const SERVER_BIN = process.env.WINLIMIT_SERVER_BIN || "redis-server";
/** The backend the whole suite runs on (WINLIMIT_CLIENT_BACKEND): `module` (the default;
 * servers start with the module), `functions` or `scripts` (servers start without it, and
 * the limiters' "auto" finds the library or the scripts). */
export const BACKEND = process.env.WINLIMIT_CLIENT_BACKEND || "module";
if (!["module", "functions", "scripts"].includes(BACKEND)) throw new Error(`WINLIMIT_CLIENT_BACKEND=${BACKEND}: expected module, functions or scripts`);
export const MODULE = BACKEND === "module";
export const CLI_BIN = process.env.WINLIMIT_CLI_BIN || "redis-cli";
const STOP_TIMEOUT_MS = 10_000;

const running = new Set();
process.on("exit", () => {
  for (const server of running) server.proc.kill("SIGKILL");
});

/** The module's .so; throws naming the fix when it is missing. */
export function modulePath() {
  const file = path.resolve(process.env.WINLIMIT_MODULE || path.join(REPO, "target", "release", "libwinlimit.so"));
  if (!fs.existsSync(file)) {
    throw new Error(`winlimit module not found at ${file}: build it with \`make build\` or set WINLIMIT_MODULE`);
  }
  return file;
}

const SERVER_VERSION = (() => {
  const out = spawnSync(SERVER_BIN, ["--version"], { encoding: "utf8" }).stdout ?? "";
  const [major, minor] = (out.match(/v=(\d+)\.(\d+)/) ?? []).slice(1).map(Number);
  return /valkey/i.test(out) ? [99, 0] : [major, minor];
})();
/** Redis 6.x (no Functions, no cluster-port), from the server's --version. */
export const REDIS_6 = SERVER_VERSION[0] < 7;
/** Redis 6.0 (no CLIENT PAUSE WRITE, no CLIENT UNPAUSE). */
export const REDIS_60 = REDIS_6 && SERVER_VERSION[1] < 2;

/** A free port below 55536 whose port + 10000 (Redis 6's cluster bus) is free too. */
async function freePortWithBus() {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 35000);
    if ((await isFree(port)) && (await isFree(port + 10000))) return port;
  }
}

function isFree(port) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

/** A loopback port nothing listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** A client on one server for the tests' own reads (not the client under test). */
export async function adminClient(port) {
  const client = createClient({ socket: { host: "127.0.0.1", port, reconnectStrategy: false } });
  client.on("error", () => {});
  await client.connect();
  return client;
}

export class RedisServer {
  /** Start a server; `module: false` starts one without winlimit (default: with it when
   * the suite runs on the module). */
  static async start({ module = MODULE, args = [], port = freePort } = {}) {
    const server = new RedisServer();
    server.dir = fs.mkdtempSync(path.join(os.tmpdir(), "winlimit-node-"));
    for (let attempt = 0; ; attempt++) {
      try {
        await server.#startOn(await port(), module, args);
        [server.module, server.args] = [module, args];
        return server;
      } catch (error) {
        // Another process took the port between the probe and the bind: try another.
        if (!String(error.message).includes("Address already in use") || attempt >= 4) {
          fs.rmSync(server.dir, { recursive: true, force: true });
          throw error;
        }
      }
    }
  }

  async #startOn(port, module, args) {
    const command = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", this.dir];
    if (module) command.push("--loadmodule", modulePath());
    const log = fs.openSync(path.join(this.dir, "redis.log"), "a");
    this.proc = spawn(SERVER_BIN, [...command, ...args], { stdio: ["ignore", log, log] });
    fs.closeSync(log);
    this.port = port;
    this.exited = new Promise((resolve) => this.proc.once("exit", resolve));
    running.add(this);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
        running.delete(this);
        throw new Error(`${SERVER_BIN} exited at start-up:\n${this.log()}`);
      }
      try {
        const client = await adminClient(port);
        // The PID too: on a busy port, PING could reach some other server.
        const info = await client.sendCommand(["INFO", "server"]);
        await client.close();
        if (info.includes(`process_id:${this.proc.pid}\r`)) return;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(`${SERVER_BIN} did not answer within ${READY_TIMEOUT_MS} ms:\n${this.log()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  log() {
    try {
      return fs.readFileSync(path.join(this.dir, "redis.log"), "utf8").split("\n").slice(-30).join("\n");
    } catch {
      return "(no log)";
    }
  }

  /** Start a stopped server again on its port (what it held is gone: nothing is saved). */
  async startAgain() {
    await this.#startOn(this.port, this.module, this.args);
  }

  /** SIGTERM this PID, wait, SIGKILL if it does not exit; remove its directory, unless
   * `keepDir` (to start it again). */
  async stop({ keepDir = false } = {}) {
    if (running.has(this)) {
      this.proc.kill("SIGTERM");
      const timer = setTimeout(() => this.proc.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timer);
      running.delete(this);
    }
    if (!keepDir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A cluster of `masters` servers with the module, every slot served. */
export class Cluster {
  static async start(masters = 3, { module = MODULE } = {}) {
    const cluster = new Cluster();
    cluster.nodes = [];
    try {
      for (let i = 0; i < masters; i++) {
        // An explicit bus port: port + 10000 is often above 65535 for ephemeral ports. Redis
        // 6 has no cluster-port: its bus is port + 10000, so both must be free.
        const bus = REDIS_6 ? [] : ["--cluster-port", String(await freePort())];
        cluster.nodes.push(await RedisServer.start({
          module,
          port: REDIS_6 ? freePortWithBus : freePort,
          args: ["--cluster-enabled", "yes", ...bus, "--cluster-node-timeout", "5000"],
        }));
      }
      const created = spawnSync(CLI_BIN, [
        "--cluster", "create", ...cluster.nodes.map((n) => `127.0.0.1:${n.port}`), "--cluster-replicas", "0", "--cluster-yes",
      ], { encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"] });
      if (created.status !== 0) throw new Error(`${CLI_BIN} --cluster create failed:\n${created.stdout}${created.stderr}`);
      cluster.admins = await Promise.all(cluster.nodes.map((n) => adminClient(n.port)));
      await cluster.#waitReady();
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** Until every node says cluster_state:ok and all agree on who serves every slot. */
  async #waitReady() {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const infos = await Promise.all(this.admins.map((a) => a.sendCommand(["CLUSTER", "INFO"])));
      const views = await Promise.all(this.admins.map((a) => a.sendCommand(["CLUSTER", "SLOTS"])));
      const normal = views.map((v) => JSON.stringify([...v].map((r) => [r[0], r[1], r[2][1]]).sort((a, b) => a[0] - b[0])));
      if (infos.every((i) => i.includes("cluster_state:ok")) && normal.every((v) => v === normal[0])) return;
      if (Date.now() > deadline) throw new Error("the cluster did not become ready");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The admin client of the node serving `key`. */
  async ownerOf(key) {
    const slot = await this.admins[0].sendCommand(["CLUSTER", "KEYSLOT", key]);
    const counts = await Promise.all(this.admins.map(async (a) => {
      const slots = await a.sendCommand(["CLUSTER", "SLOTS"]);
      return slots.some((r) => r[0] <= slot && slot <= r[1] && r[2][1] === a.options.socket.port);
    }));
    return { slot, admin: this.admins[counts.indexOf(true)], others: this.admins.filter((_, i) => !counts[i]) };
  }

  async flush() {
    await Promise.all(this.admins.map((a) => a.sendCommand(["FLUSHALL"])));
  }

  async stop() {
    for (const admin of this.admins ?? []) await admin.close().catch(() => {});
    for (const node of this.nodes.reverse()) await node.stop();
  }
}
