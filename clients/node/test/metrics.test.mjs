// Metrics from winlimit/metrics on a prom-client registry of the test's own: after a scripted
// sequence of requests to Express and Fastify apps on their real HTTP servers, and of calls to
// the limiter, over a real redis-server, the counters equal the decisions made; no key is
// ever a label.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Registry } from "prom-client";
import { Metrics } from "winlimit/metrics";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";
import { LIBRARIES } from "./support/clients.mjs";
import { redisForFile, testLimiter } from "./support/fixture.mjs";
import { RedisServer } from "./support/servers.mjs";

const W = 60_000;
const OUTCOMES = ["allowed", "rejected", "shadow_rejected", "cached", "fallback", "error"];
const ctx = redisForFile();
const twiceAMinute = (l, key) => l.fixed(key, W, 2, { name: "api" });

async function counts(registry, policy = "api") {
  const { values } = await registry.getSingleMetric("winlimit_decisions_total").get();
  const out = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
  for (const { labels, value } of values) if (labels.policy === policy) out[labels.outcome] = value;
  return out;
}

async function callCount(registry) {
  const { values } = await registry.getSingleMetric("winlimit_call_seconds").get();
  return values.find((v) => v.metricName === "winlimit_call_seconds_count" && v.labels.backend === "redis")?.value ?? 0;
}

/** `n` GETs on an app whose middleware counts in a fresh registry; [registry, statuses]. */
async function getAll(framework, n, options = {}) {
  const registry = new Registry();
  const limiter = options.limiter ?? testLimiter(ctx.connection.client, { cacheRejections: true });
  const statuses = await withApp(framework, { check: twiceAMinute, ...options, limiter, metrics: new Metrics({ registry }) }, async (get) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push((await get()).status);
    return out;
  });
  return [registry, statuses];
}

for (const framework of Object.keys(FRAMEWORKS)) {
  describe(framework, () => {
    test("the counters equal the decisions", async () => {
      const [registry, statuses] = await getAll(framework, 5);
      assert.deepEqual(statuses, [200, 200, 429, 429, 429]);
      // Two accepted, one rejected by Redis, two answered from the limiter's cache.
      assert.deepEqual(await counts(registry), { allowed: 2, rejected: 1, shadow_rejected: 0, cached: 2, fallback: 0, error: 0 });
      assert.equal(await callCount(registry), 3);
    });

    test("shadow rejections are counted as such", async () => {
      const [registry, statuses] = await getAll(framework, 4, { shadow: true, logger: () => {} });
      assert.deepEqual(statuses, [200, 200, 200, 200]);
      const c = await counts(registry);
      assert.deepEqual([c.allowed, c.shadow_rejected], [2, 2]);
    });

    test("a failed call is an error of the limiter's policy", async () => {
      const server = await RedisServer.start();
      const connection = await LIBRARIES["node-redis 6"].plain(server.port, { socket: { reconnectStrategy: false } });
      await server.stop();
      try {
        const [registry, statuses] = await getAll(framework, 2, { limiter: testLimiter(connection.client), logger: () => {} });
        assert.deepEqual(statuses, [503, 503]);
        assert.equal((await counts(registry, "winlimit")).error, 2);
      } finally {
        await connection.close();
      }
    });

    test("the lowest remaining is reported once per scrape", async () => {
      const [registry] = await getAll(framework, 1);
      const scrape = async () => (await registry.getSingleMetric("winlimit_lowest_remaining").get()).values;
      assert.deepEqual((await scrape()).map((v) => [v.labels.policy, v.value]), [["api", 1]]);
      assert.deepEqual(await scrape(), []);
    });

    test("no key is a label", async () => {
      const [registry] = await getAll(framework, 3);
      const text = await registry.metrics();
      assert.ok(text.includes("winlimit_decisions_total") && !text.includes("127.0.0.1") && !text.includes("rl:"));
    });
  });
}

test("a limiter counts every call", async () => {
  const registry = new Registry();
  const limiter = testLimiter(ctx.connection.client, { cacheRejections: true, metrics: new Metrics({ registry }) });
  const outcomes = [];
  for (let i = 0; i < 6; i++) outcomes.push((await limiter.gcra(`user:${i % 2}`, W, 1, { name: "api" })).allowed);
  assert.deepEqual(outcomes, [true, true, false, false, false, false]);
  assert.deepEqual(await counts(registry), { allowed: 2, rejected: 2, shadow_rejected: 0, cached: 2, fallback: 0, error: 0 });
  assert.equal(await callCount(registry), 4);
  assert.ok(!(await registry.metrics()).includes("user:"));
});
