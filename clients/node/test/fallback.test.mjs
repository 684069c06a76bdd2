// `fallback: new MemoryLimiter()` on Express and Fastify, each served by the framework's real
// HTTP server and called with fetch, with a real redis-server stopped mid-test by its PID and
// started again: the fallback decides while Redis is down, with one warning (counted as
// outcome "fallback" in the metrics), and Redis decides again once it is back. Here the
// limiter's circuit breaker is off or stays closed; breaker.test.mjs has it open.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Registry } from "prom-client";
import { Limiter, MemoryLimiter } from "winlimit";
import { Metrics } from "winlimit/metrics";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";
import { LIBRARIES } from "./support/clients.mjs";
import { redisForFile } from "./support/fixture.mjs";
import { waitUntil } from "./support/ready.mjs";
import { adminClient, REDIS_60, RedisServer } from "./support/servers.mjs";

const LIMIT = 3;
const ctx = redisForFile();
const check = (l, key) => l.fixed(key, 60_000, LIMIT);
const remaining = (response) => Number(/;r=(\d+)/.exec(response.headers.get("RateLimit"))[1]);

/** A server of its own, and a limiter on it whose client rejects at once while the server is
 * down (no offline queue) and reconnects quickly once it is back. */
async function redisToStop(limiterOptions) {
  const server = await RedisServer.start();
  const conn = await LIBRARIES["node-redis 6"].plain(server.port, {
    client: { disableOfflineQueue: true },
    socket: { reconnectStrategy: () => 20 },
  });
  return { server, conn, limiter: new Limiter(conn.client, limiterOptions), close: async () => { await conn.close(); await server.stop(); } };
}

/** Resolves once the client is connected again (it reconnects by itself). */
function reconnected(client) {
  return waitUntil(() => client.isReady, "the client to reconnect");
}

for (const framework of Object.keys(FRAMEWORKS)) {
  describe(framework, () => {
    test("without a breaker, the fallback holds the limit while Redis is down, then Redis decides again", async () => {
      const redis = await redisToStop({ breaker: false });
      const fallback = new MemoryLimiter();
      const logs = [];
      const registry = new Registry();
      const options = { limiter: redis.limiter, check, fallback, metrics: new Metrics({ registry }), logger: (m, level) => logs.push([level, m]) };
      try {
        await withApp(framework, options, async (get) => {
          const first = await get();
          assert.deepEqual([first.status, remaining(first)], [200, LIMIT - 1]); // Redis decided
          await redis.server.stop({ keepDir: true });

          // Down: the process's own count, from its first request on; the limit holds.
          const during = [];
          for (let i = 0; i < LIMIT + 2; i++) during.push(await get());
          assert.deepEqual(during.map((r) => r.status), [200, 200, 200, 429, 429]);
          assert.deepEqual(during.slice(0, LIMIT).map(remaining), [2, 1, 0]);
          assert.equal(fallback.size, 1);
          assert.equal(logs.length, 1, JSON.stringify(logs));
          assert.equal(logs[0][0], "warn");
          assert.match(logs[0][1], /^winlimit: Redis failed \(\w+: .*\): deciding by the in-process fallback until it answers again/);

          await redis.server.startAgain();
          await reconnected(redis.conn.client);
          // Back (empty: the server keeps nothing across restarts): Redis counts again, where
          // the fallback would still refuse.
          const after = await get();
          assert.deepEqual([after.status, remaining(after)], [200, LIMIT - 1]);
          const admin = await adminClient(redis.server.port);
          assert.equal(await admin.sendCommand(["GET", "rl:127.0.0.1"]), "1");
          await admin.close();
        });
        assert.deepEqual(logs.slice(1), [["info", "winlimit: Redis answers again: deciding by Redis"]]);
        const { values } = await registry.getSingleMetric("winlimit_decisions_total").get();
        const counted = Object.fromEntries(values.map((v) => [v.labels.outcome, v.value]));
        assert.deepEqual(counted, { allowed: 2, fallback: LIMIT + 2 });
      } finally {
        await redis.close();
      }
    });

    const pauses = { skip: REDIS_60 && "Redis 6.0 has neither CLIENT PAUSE WRITE nor CLIENT UNPAUSE" };
    test("the fallback decides when Redis gives no answer in time, silently while the breaker stays closed", pauses, async () => {
      const logs = [];
      const options = { limiter: ctx.limiter, check, fallback: new MemoryLimiter(), timeoutMs: 200, logger: (m, level) => logs.push([level, m]) };
      await withApp(framework, options, async (get) => {
        assert.equal(remaining(await get()), LIMIT - 1); // Redis decided
        await ctx.admin.sendCommand(["CLIENT", "PAUSE", "10000", "WRITE"]);
        const paused = [];
        try {
          for (let i = 0; i < 2; i++) paused.push(await get());
        } finally {
          await ctx.admin.sendCommand(["CLIENT", "UNPAUSE"]);
        }
        // The fallback's own count: Redis's first unit is not in it.
        assert.deepEqual(paused.map((p) => [p.status, remaining(p)]), [[200, LIMIT - 1], [200, LIMIT - 2]]);
        await get();
      });
      // Two failures, fewer than the breaker's three: it stays closed, and only its opening
      // would be worth a line.
      assert.equal(ctx.limiter.breaker.of("rl:127.0.0.1").state, "closed");
      assert.deepEqual(logs, []);
      assert.ok(Number(await ctx.admin.sendCommand(["GET", "rl:127.0.0.1"])) >= 2);
    });
  });
}
