// The Express and the Fastify middleware, each in an app served by the framework's real HTTP
// server on a loopback port and called with fetch, over a real redis-server; Redis stopped
// under a running app for fail-open and fail-closed.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";
import { LIBRARIES } from "./support/clients.mjs";
import { redisForFile, testLimiter } from "./support/fixture.mjs";
import { RedisServer } from "./support/servers.mjs";

const W = 60_000;
const ALGORITHMS = {
  "slide": (l, key) => l.slide(key, W, 3),
  "slide pairs": (l, key) => l.slide(key, [[1000, 3], [W, 100]]),
  "slide bucket": (l, key) => l.slide(key, W, 3, { bucket: 1000 }),
  "fixed": (l, key) => l.fixed(key, W, 3),
  "fixed align": (l, key) => l.fixed(key, 10 ** 12, 3, { align: true }),
  "gcra": (l, key) => l.gcra(key, W, 1, { burst: 3 }),
};

const ctx = redisForFile();

/** The two fields, split into their parameters: [[name, {param: value}]] per item. */
function fields(response) {
  const parse = (value) => value.split(", ").map((item) => {
    const [name, ...params] = item.split(";");
    return [JSON.parse(name), Object.fromEntries(params.map((p) => p.split("=")).map(([k, v]) => [k, Number(v)]))];
  });
  return { policy: parse(response.headers.get("RateLimit-Policy")), state: parse(response.headers.get("RateLimit")) };
}

/** A Redis server of its own for a test that stops it, and a limiter on it over `library`. */
async function doomedRedis(library, clientOptions) {
  const doomed = await RedisServer.start();
  const conn = await LIBRARIES[library].plain(doomed.port, clientOptions);
  return { server: doomed, limiter: testLimiter(conn.client), close: async () => { await conn.close(); await doomed.stop(); } };
}

for (const framework of Object.keys(FRAMEWORKS)) {
  describe(framework, () => {
    for (const [name, check] of Object.entries(ALGORITHMS)) {
      test(`${name} holds the limit with the fields on every response`, async () => {
        const responses = await withApp(framework, { limiter: ctx.limiter, check }, async (get) => {
          const out = [];
          for (let i = 0; i < 4; i++) out.push(await get());
          return out;
        });
        assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 429]);
        const parsed = responses.map(fields);
        assert.deepEqual(parsed.map((p) => p.state[0][1].r), [2, 1, 0, 0]);
        for (const p of parsed) assert.deepEqual(p.policy, parsed[0].policy);
        const retryAfter = Number(responses[3].headers.get("Retry-After"));
        assert.ok(retryAfter >= 1 && parsed[3].state[0][1].t <= retryAfter);
        assert.equal(responses[0].headers.get("Retry-After"), null);
      });
    }

    test("the 429 carries the policy, the state and Retry-After", async () => {
      const responses = await withApp(framework, { limiter: ctx.limiter, check: ALGORITHMS.slide }, async (get) => {
        const out = [];
        for (let i = 0; i < 4; i++) out.push(await get());
        return out;
      });
      assert.deepEqual(responses.map((r) => [r.headers.get("RateLimit-Policy"), r.headers.get("RateLimit")]), [
        ['"winlimit";q=3;w=60', '"winlimit";r=2;t=60'],
        ['"winlimit";q=3;w=60', '"winlimit";r=1;t=60'],
        ['"winlimit";q=3;w=60', '"winlimit";r=0;t=60'],
        ['"winlimit";q=3;w=60', '"winlimit";r=0;t=60'],
      ]);
      // The oldest of the three leaves a minute after it came, well under a second ago.
      assert.deepEqual([responses[3].status, responses[3].headers.get("Retry-After"), await responses[3].text()], [429, "60", "Too Many Requests"]);
      assert.equal(await ctx.admin.sendCommand(["ZCARD", "rl:127.0.0.1"]), 3);
    });

    test("an accepted request keeps the app's response, with the fields added", async () => {
      const response = await withApp(framework, { limiter: ctx.limiter, check: ALGORITHMS.fixed }, (get) => get());
      assert.deepEqual([response.status, await response.text(), response.headers.get("X-App")], [200, "hello", "kept"]);
      assert.equal(response.headers.get("RateLimit"), '"winlimit";r=2;t=60');
      assert.equal(response.headers.get("RateLimit-Policy"), '"winlimit";q=3;w=60');
    });

    test("the key is any function of the request, under the prefix", async () => {
      const options = { limiter: ctx.limiter, check: (l, key) => l.fixed(key, W, 1), key: (req) => req.headers["x-user"] ?? "anonymous", prefix: "api:" };
      const codes = await withApp(framework, options, async (get) => {
        const out = [];
        for (const user of ["a", "b", "a", "b", "c"]) out.push((await get("/", { "x-user": user })).status);
        return out;
      });
      assert.deepEqual(codes, [200, 200, 429, 429, 200]);
      assert.deepEqual((await ctx.admin.sendCommand(["KEYS", "*"])).sort(), ["api:a", "api:b", "api:c"]);
    });

    test("a key function resolving to nothing leaves the request unlimited", async () => {
      const key = async (req) => (req.url === "/health" ? undefined : req.url === "/" ? "everyone" : null);
      const [codes, health] = await withApp(framework, { limiter: ctx.limiter, key, check: (l, k) => l.gcra(k, W, 1) }, async (get) => {
        const out = [];
        for (const path of ["/", "/", "/health", "/health"]) out.push((await get(path)).status);
        return [out, await get("/health")];
      });
      assert.deepEqual(codes, [200, 429, 200, 200]);
      assert.equal(health.headers.get("RateLimit"), null);
      assert.deepEqual(await ctx.admin.sendCommand(["KEYS", "*"]), ["rl:everyone"]);
    });

    for (const [failOpen, status] of [[false, 503], [true, 200]]) {
      const how = failOpen ? "open" : "closed";
      test(`Redis stopped under a running app: the client rejects, the request fails ${how}, logged once`, async () => {
        // No reconnects: node-redis closes the client when the server goes, and rejects at once.
        const redis = await doomedRedis("node-redis 6", { socket: { reconnectStrategy: false } });
        const logs = [];
        try {
          const [up, down, body] = await withApp(framework, { limiter: redis.limiter, check: ALGORITHMS.slide, failOpen, logger: (m) => logs.push(m) }, async (get) => {
            const first = await get();
            await redis.server.stop();
            const second = await get();
            return [first, second, await second.text()];
          });
          assert.deepEqual([up.status, up.headers.get("RateLimit")], [200, '"winlimit";r=2;t=60']);
          assert.equal(down.status, status);
          assert.equal(down.headers.get("RateLimit"), null);
          assert.equal(body === "hello", failOpen);
          assert.equal(logs.length, 1, logs.join("\n"));
          assert.match(logs[0], new RegExp(`"rl:127\\.0\\.0\\.1" failed, failing ${how}: `));
        } finally {
          await redis.close();
        }
      });

      test(`Redis stopped under a running app: no answer within timeoutMs, the request fails ${how}`, async () => {
        // ioredis's defaults: it reconnects and retries, so the call neither resolves nor rejects soon.
        const redis = await doomedRedis("ioredis 6", {});
        const logs = [];
        try {
          const [down, elapsed] = await withApp(framework, { limiter: redis.limiter, check: ALGORITHMS.gcra, failOpen, timeoutMs: 300, logger: (m) => logs.push(m) }, async (get) => {
            assert.equal((await get()).status, 200);
            await redis.server.stop();
            const start = performance.now();
            const response = await get();
            return [response, performance.now() - start];
          });
          assert.equal(down.status, status);
          assert.equal(down.headers.get("RateLimit"), null);
          assert.ok(elapsed >= 290 && elapsed < 3000, `answered after ${elapsed} ms`);
          assert.deepEqual(logs.length, 1);
          assert.match(logs[0], /TimeoutError: no answer from Redis within 300 ms/);
        } finally {
          await redis.close();
        }
      });
    }

    test("fail closed is the default, for a server without the module too", async () => {
      const bare = await RedisServer.start({ module: false });
      const conn = await LIBRARIES["node-redis 6"].plain(bare.port);
      const logs = [];
      try {
        const response = await withApp(framework, { limiter: testLimiter(conn.client, { backend: "module" }), check: ALGORITHMS.fixed, logger: (m) => logs.push(m) }, (get) => get());
        assert.deepEqual([response.status, await response.text()], [503, "rate limiter unavailable"]);
        assert.equal(logs.length, 1);
        assert.match(logs[0], /failing closed: .*unknown command.*--loadmodule/);
      } finally {
        await conn.close();
        await bare.stop();
      }
    });

    test("an error thrown in check is the app's 500, even failing open", async () => {
      const logs = [];
      const check = () => {
        throw new Error("a bug in the check");
      };
      const response = await withApp(framework, { limiter: ctx.limiter, check, failOpen: true, logger: (m) => logs.push(m) }, (get) => get());
      assert.equal(response.status, 500);
      assert.deepEqual(logs, []);
    });

    test("an error thrown in key is the app's 500", async () => {
      const key = async () => {
        throw new Error("a bug in the key");
      };
      const response = await withApp(framework, { limiter: ctx.limiter, check: ALGORITHMS.fixed, key, failOpen: true }, (get) => get());
      assert.equal(response.status, 500);
    });
  });
}
