// The limiter's circuit breaker against a real redis-server that hangs (SIGSTOP, then
// SIGCONT) and one that is killed and started again on its port, under real Express and
// Fastify apps called with fetch: while open nothing is sent (counted at a TCP proxy of the
// test's own), one probe per open period even under 50 concurrent requests, the fallback's
// decisions keep count and blockMs, Redis decides again once a probe gets an answer, one
// warning and one info line per outage, and the breaker metrics. Then a cluster with one node
// stopped: only that node's keys fall back. Every wait is computed from the breaker's own
// open period (breaker.of(key).openUntilMs), never chosen by hand.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Registry } from "prom-client";
import { BreakerOpen, Limiter, MemoryLimiter } from "winlimit";
import { Metrics } from "winlimit/metrics";
import { withApp } from "./support/apps.mjs";
import { LIBRARIES } from "./support/clients.mjs";
import { CountingProxy } from "./support/proxy.mjs";
import { CALL_DEADLINE_MS, waitUntil } from "./support/ready.mjs";
import { Cluster, RedisServer } from "./support/servers.mjs";

const LIMIT = 3;
const KEY = "rl:127.0.0.1"; // the middleware's key for fetch from 127.0.0.1
const OPEN_MS = 150;
const TIMEOUT_MS = 200;
const check = (l, key) => l.fixed(key, 60_000, LIMIT);
const remaining = (response) => Number(/;r=(\d+)/.exec(response.headers.get("RateLimit"))[1]);

/** Resolves once the breaker of `key` has reached the end of its open period. */
async function openPeriodOver(limiter, key) {
  const breaker = limiter.breaker.of(key);
  assert.equal(breaker.state, "open");
  const left = breaker.openUntilMs - performance.now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, Math.ceil(left) + 1));
}

/** How many transitions of `cause` the limiter's breaker made (winlimit_breaker_transitions_total). */
async function transitions(registry, cause) {
  return (await metricValues(registry, "winlimit_breaker_transitions_total")).filter((v) => v.labels.cause === cause).reduce((n, v) => n + v.value, 0);
}

async function metricValues(registry, name) {
  const { values } = await registry.getSingleMetric(name).get();
  return values;
}

/** A server behind a counting proxy, a node-redis client through the proxy, and a limiter
 * on it with a short open period, logging into `logs` and counting into `registry`. */
async function setUp(limiterOptions, clientOptions = {}) {
  const server = await RedisServer.start();
  const proxy = await CountingProxy.start(server.port, KEY);
  const conn = await LIBRARIES["node-redis 6"].plain(proxy.port, clientOptions);
  await warmUp(conn.client, ["warm-up"]);
  const logs = [];
  const registry = new Registry();
  const limiter = new Limiter(conn.client, {
    openMs: OPEN_MS,
    timeoutMs: TIMEOUT_MS,
    logger: (message, level) => logs.push([level, message]),
    metrics: new Metrics({ registry }),
    ...limiterOptions,
  });
  const close = async () => {
    if (server.proc.signalCode === null) server.proc.kill("SIGCONT");
    await conn.close();
    await proxy.close();
    await server.stop();
  };
  return { server, proxy, conn, logs, registry, limiter, close };
}

for (const framework of ["express", "fastify"]) {
  describe(framework, () => {
    test("Redis hung (SIGSTOP): the breaker opens, sends nothing, probes once per period under 50 concurrent requests, and closes after SIGCONT", async () => {
      const fallback = new MemoryLimiter();
      const s = await setUp({ fallback });
      try {
        await withApp(framework, { limiter: s.limiter, check }, async (get) => {
          assert.equal(remaining(await get()), LIMIT - 1); // Redis decided
          s.server.proc.kill("SIGSTOP");

          // Three timeouts in a row: the fallback decides each, and the breaker opens.
          for (let i = 0; i < 3; i++) assert.equal((await get()).status, 200);
          assert.equal(s.limiter.breaker.of(KEY).state, "open");
          const sentWhenOpened = s.proxy.sent;
          // Nothing reaches the proxy after the breaker opened but its probes.
          const onlyProbes = async () => assert.equal(s.proxy.sent - sentWhenOpened, await transitions(s.registry, "open_elapsed"));

          // Open: answered by the fallback (its own count: 3 used, so the rest are refused).
          const whileOpen = [];
          for (let i = 0; i < 5; i++) whileOpen.push(await get());
          assert.deepEqual(whileOpen.map((r) => r.status), [429, 429, 429, 429, 429]);
          await onlyProbes();

          // The open period over: of 50 requests at once, one is the probe, which times out
          // and opens the breaker again for twice as long; nothing else is sent. (How many
          // arrive while the probe runs is up to the machine: each period has one probe.)
          await openPeriodOver(s.limiter, KEY);
          const probesBefore = await transitions(s.registry, "open_elapsed");
          const burst = await Promise.all(Array.from({ length: 50 }, () => get()));
          assert.ok(burst.every((r) => r.status === 429));
          assert.ok((await transitions(s.registry, "open_elapsed")) > probesBefore);
          await onlyProbes();
          await waitFor(() => s.limiter.breaker.of(KEY).state === "open");
          assert.equal(s.limiter.breaker.of(KEY).openPeriodMs, Math.min(OPEN_MS * 2 ** (await transitions(s.registry, "probe_failed")), 30_000));

          // 50 calls in one turn of the event loop: exactly one probe.
          await openPeriodOver(s.limiter, KEY);
          const sentBeforeBurst = s.proxy.sent;
          const direct = await Promise.all(Array.from({ length: 50 }, () => s.limiter.fixed(KEY, 60_000, LIMIT)));
          assert.ok(direct.every((d) => d.backend === "memory"));
          assert.equal(s.proxy.sent, sentBeforeBurst + 1);
          await onlyProbes();
          await waitFor(() => s.limiter.breaker.of(KEY).state === "open");

          // Back: the next probe gets an answer, and Redis decides again.
          s.server.proc.kill("SIGCONT");
          await openPeriodOver(s.limiter, KEY);
          const sentBefore = s.proxy.sent;
          const back = await get();
          assert.equal(s.proxy.sent, sentBefore + 1);
          assert.equal(s.limiter.breaker.of(KEY).state, "closed");
          assert.ok(back.headers.get("RateLimit"));
          await get();
          assert.equal(s.proxy.sent, sentBefore + 2);
        });
        assert.deepEqual(s.logs.map(([level]) => level), ["warn", "info"]);
        assert.match(s.logs[0][1], /^winlimit: Redis failed 3 time\(s\) in a row \(CallTimedOut: no answer from Redis within 200 ms\): circuit breaker open, sending nothing for 150 ms/);
        assert.equal(s.logs[1][1], "winlimit: Redis answers again: circuit breaker closed, deciding by Redis");
        const probes = await transitions(s.registry, "open_elapsed");
        assert.ok(probes >= 2);
        const counted = (await metricValues(s.registry, "winlimit_breaker_transitions_total")).map((v) => [v.labels.to, v.labels.cause, v.value]);
        assert.deepEqual(counted.sort(), [
          ["closed", "probe_succeeded", 1], ["half_open", "open_elapsed", probes], ["open", "failures", 1], ["open", "probe_failed", probes - 1],
        ]);
        assert.deepEqual((await metricValues(s.registry, "winlimit_breaker_state")).map((v) => [v.labels.limiter, v.value]), [["winlimit", 0]]);
        const bySource = Object.fromEntries((await metricValues(s.registry, "winlimit_decisions_by_source_total")).map((v) => [v.labels.source, v.value]));
        assert.deepEqual(bySource, { redis: 3, memory: 3 + 5 + 50 + 50 });
        const memoryCalls = (await metricValues(s.registry, "winlimit_call_seconds")).find((v) => v.metricName === "winlimit_call_seconds_count" && v.labels.backend === "memory");
        assert.equal(memoryCalls.value, bySource.memory);
      } finally {
        await s.close();
      }
    });

    test("Redis killed and started again on its port: the middleware's fallback keeps count and blockMs, and Redis decides again", async () => {
      // Killed, not hung: calls are refused at once, so the probe after the restart gets the
      // tests' call deadline, not the short timeout a hang needs.
      const s = await setUp({ openMs: 500, timeoutMs: CALL_DEADLINE_MS }, { client: { disableOfflineQueue: true }, socket: { reconnectStrategy: () => 20 } });
      const options = { limiter: s.limiter, check, fallback: new MemoryLimiter(), count: "failures", blockMs: 60_000, logger: () => {} };
      try {
        await withApp(framework, options, async (get) => {
          assert.equal((await get()).status, 200);
          await s.server.stop({ keepDir: true });
          const down = [];
          for (let i = 0; i < 3; i++) down.push(await get());
          assert.equal(s.limiter.breaker.of(KEY).state, "open");
          // Successes do not count: each is given back, so remaining stays at LIMIT - 1.
          assert.deepEqual(down.map((r) => [r.status, remaining(r)]), [[200, 2], [200, 2], [200, 2]]);
          // Failures (404) count; over the limit, the middleware's blockMs blocks for 60 s.
          const failing = [];
          for (let i = 0; i < LIMIT + 1; i++) failing.push(await get("/no-such-page"));
          assert.deepEqual(failing.map((r) => r.status), [404, 404, 404, 429]);
          assert.deepEqual(failing.slice(0, LIMIT).map(remaining), [2, 1, 0]);
          assert.equal(failing[LIMIT].headers.get("Retry-After"), "60");

          await s.server.startAgain();
          await answering(s.conn.client);
          if (s.limiter.breaker.of(KEY).state === "open") await openPeriodOver(s.limiter, KEY);
          const back = await get();
          assert.equal(s.limiter.breaker.of(KEY).state, "closed");
          // The restarted server holds nothing: Redis's fresh count, where the fallback blocks.
          assert.deepEqual([back.status, remaining(back)], [200, LIMIT - 1]);
        });
      } finally {
        await s.close();
      }
    });
  });
}

test("without a fallback, an open breaker rejects at once with BreakerOpen, and the middleware answers 503 without a line per request", async () => {
  const s = await setUp({ failures: 1, openMs: 60_000 });
  const lines = [];
  try {
    await withApp("express", { limiter: s.limiter, check, logger: (m, level) => lines.push([level, m]) }, async (get) => {
      s.server.proc.kill("SIGSTOP");
      assert.equal((await get()).status, 503); // the timeout: logged, and the breaker opens
      const sent = s.proxy.sent;
      assert.equal(lines.length, 1);
      await assert.rejects(s.limiter.fixed(KEY, 60_000, LIMIT), (e) => e instanceof BreakerOpen && e.retryInMs <= 60_000);
      for (let i = 0; i < 3; i++) assert.equal((await get()).status, 503);
      assert.equal(s.proxy.sent, sent);
      assert.equal(lines.length, 1, JSON.stringify(lines));
    });
  } finally {
    await s.close();
  }
});

for (const library of Object.keys(LIBRARIES)) {
  test(`over ${library}: a hung server opens the breaker, nothing is sent while open, and a probe after SIGCONT closes it`, async () => {
    const server = await RedisServer.start();
    const proxy = await CountingProxy.start(server.port, KEY);
    const conn = await LIBRARIES[library].plain(proxy.port);
    try {
      await warmUp(conn.client, ["warm-up"]);
      // An open period far longer than five calls in memory take, so none of them is a probe.
      const limiter = new Limiter(conn.client, { failures: 2, openMs: 1000, timeoutMs: TIMEOUT_MS, fallback: new MemoryLimiter(), logger: () => {} });
      assert.notEqual((await limiter.fixed(KEY, 60_000, LIMIT)).backend, "memory");
      server.proc.kill("SIGSTOP");
      for (let i = 0; i < 2; i++) assert.equal((await limiter.fixed(KEY, 60_000, LIMIT)).backend, "memory");
      assert.equal(limiter.breaker.of(KEY).state, "open");
      const sent = proxy.sent;
      for (let i = 0; i < 5; i++) assert.equal((await limiter.fixed(KEY, 60_000, LIMIT)).backend, "memory");
      assert.equal(proxy.sent, sent);
      server.proc.kill("SIGCONT");
      await openPeriodOver(limiter, KEY);
      assert.notEqual((await limiter.fixed(KEY, 60_000, LIMIT)).backend, "memory");
      assert.equal(limiter.breaker.of(KEY).state, "closed");
      assert.equal(proxy.sent, sent + 1);
    } finally {
      server.proc.kill("SIGCONT");
      await conn.close();
      await proxy.close();
      await server.stop();
    }
  });
}

test("the limiter's fallback decides the very call while open: its cost, refund and blockMs, as a MemoryLimiter given the same calls", async () => {
  const s = await setUp({ fallback: new MemoryLimiter(), failures: 1, openMs: 60_000 });
  try {
    s.server.proc.kill("SIGSTOP");
    await s.limiter.fixed("opening", 60_000, 5); // times out: the breaker opens
    assert.equal(s.limiter.breaker.of(KEY).state, "open");
    const sent = s.proxy.sent;
    const twin = new MemoryLimiter();
    const calls = [[{ cost: 2 }], [{ refund: 1 }], [{ cost: 3 }], [{ cost: 3, blockMs: 60_000 }], [{}]];
    const decisions = [];
    for (const [options] of calls) {
      const [got, want] = [await s.limiter.fixed(KEY, 60_000, 5, options), await twin.fixed(KEY, 60_000, 5, options)];
      assert.equal(got.backend, "memory");
      assert.deepEqual([got.allowed, got.remaining, got.limit], [want.allowed, want.remaining, want.limit], JSON.stringify(options));
      // Blocked for 60 s from the rejection, or the window's rest: within the calls' spread.
      assert.ok(Math.abs(got.retryAfterMs - want.retryAfterMs) < 1000, `${got.retryAfterMs} ${want.retryAfterMs}`);
      decisions.push(got);
    }
    assert.deepEqual(decisions.map((d) => [d.allowed, d.remaining]), [[true, 3], [true, 4], [true, 1], [false, 0], [false, 0]]);
    assert.ok(decisions[3].retryAfterMs > 59_000 && decisions[4].retryAfterMs > 59_000); // blocked by the fourth call's blockMs
    assert.equal(s.proxy.sent, sent);
  } finally {
    await s.close();
  }
});

test("a cluster node stopped: only its keys fall back, the other nodes' keys are decided in Redis", async () => {
  const cluster = await Cluster.start(3);
  const conn = await LIBRARIES["node-redis 6"].cluster(cluster.nodes[0].port);
  try {
    const limiter = new Limiter(conn.client, { failures: 1, openMs: 60_000, timeoutMs: TIMEOUT_MS, fallback: new MemoryLimiter(), logger: () => {} });
    const keys = await keysOnTwoNodes(cluster);
    await warmUp(conn.client, [keys.stopped, keys.running]);
    for (const key of [keys.stopped, keys.running]) assert.notEqual((await limiter.fixed(key, 60_000, LIMIT)).backend, "memory");
    const stopped = cluster.nodes.find((n) => n.port === keys.stoppedPort);
    stopped.proc.kill("SIGSTOP");
    try {
      assert.equal((await limiter.fixed(keys.stopped, 60_000, LIMIT)).backend, "memory"); // times out, opens
      assert.equal(limiter.breaker.of(keys.stopped).state, "open");
      assert.equal((await limiter.fixed(keys.stopped, 60_000, LIMIT)).backend, "memory");
      const other = await limiter.fixed(keys.running, 60_000, LIMIT);
      assert.notEqual(other.backend, "memory");
      assert.equal(other.remaining, LIMIT - 2);
      assert.equal(limiter.breaker.of(keys.running).state, "closed");
    } finally {
      stopped.proc.kill("SIGCONT");
    }
  } finally {
    await conn.close();
    await cluster.stop();
  }
});

/** The backend chosen and the scripts loaded on the nodes of `keys`, by a limiter of the
 * test's own on the same client (what the limiter finds is kept per client), without a
 * timeout: the first call to a server takes longest. */
async function warmUp(client, keys) {
  const warm = new Limiter(client, { timeoutMs: null, breaker: false });
  for (const key of keys) await warm.fixed(key, 1000, 1);
  for (const key of keys) await warm.reset(key);
}

/** Two keys served by different nodes, and the port of the first's node. */
async function keysOnTwoNodes(cluster) {
  const first = await cluster.ownerOf("breaker:a");
  for (let i = 0; ; i++) {
    const owner = await cluster.ownerOf(`breaker:b${i}`);
    if (owner.admin !== first.admin) return { stopped: "breaker:a", running: `breaker:b${i}`, stoppedPort: first.admin.options.socket.port };
  }
}

/** Resolves once the client (through the proxy) gets an answer from the server again. */
function answering(client) {
  return waitUntil(() => client.sendCommand(["PING"]), "the client to reconnect");
}

function waitFor(condition) {
  return waitUntil(condition, "the condition", 5);
}
