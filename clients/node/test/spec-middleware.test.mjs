// The middleware cases every client shares (clients/spec/middleware.json), each run on the
// Express middleware and the Fastify hook, on their real HTTP servers called with fetch, over
// a real redis-server: stopped for "stopped", paused with CLIENT PAUSE for "paused". The
// Python client's tests read the same file (test_spec_middleware.py).

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Limiter } from "winlimit";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";
import { LIBRARIES } from "./support/clients.mjs";
import { redisForFile } from "./support/fixture.mjs";
import { REDIS_60, RedisServer } from "./support/servers.mjs";
import { camel, load } from "./support/spec.mjs";

const SPEC = load("middleware.json");
const ctx = redisForFile();

/** The spec's check as a limiter call on the request's key. */
function checkOf(c) {
  if (c.check === "raises") {
    return () => {
      throw new Error("a bug in the check");
    };
  }
  const { method, args, options } = c.check;
  return (l, key) => l[method](key, ...args.slice(1), camel(options));
}

function optionsOf(c, limiter, logs) {
  const options = { ...camel(c.options), limiter, check: checkOf(c), logger: (message, level) => logs.push([level, message]) };
  if ("key" in options) options.key = () => undefined;
  return options;
}

/** A limiter on a server of its own, stopped mid-case: node-redis without reconnects then
 * rejects at once. Otherwise the file's server. */
async function redisFor(c) {
  if (c.redis !== "stopped") return { limiter: ctx.limiter, stop: async () => {}, close: async () => {} };
  const server = await RedisServer.start();
  const connection = await LIBRARIES["node-redis 6"].plain(server.port, { socket: { reconnectStrategy: false } });
  const close = async () => {
    await connection.close();
    await server.stop();
  };
  return { limiter: new Limiter(connection.client), stop: () => server.stop(), close };
}

async function lastResponse(c, get, redis) {
  for (let i = 0; i < c.requests - 1; i++) await get();
  if (c.redis === "stopped") await redis.stop();
  if (c.redis === "paused") await ctx.admin.sendCommand(["CLIENT", "PAUSE", "10000", "WRITE"]);
  const started = performance.now();
  try {
    const response = await get();
    return { response, body: await response.text(), elapsed: performance.now() - started };
  } finally {
    if (c.redis === "paused") await ctx.admin.sendCommand(["CLIENT", "UNPAUSE"]);
  }
}

const FIELDS = ["RateLimit-Policy", "RateLimit", "Retry-After"];

for (const framework of Object.keys(FRAMEWORKS)) {
  describe(framework, () => {
    for (const c of SPEC.cases) {
      const skip = REDIS_60 && c.redis === "paused" && "Redis 6.0 has neither CLIENT PAUSE WRITE nor CLIENT UNPAUSE";
      test(`the middleware answers as the shared case says: ${c.name}`, { skip }, async () => {
        const logs = [];
        const redis = await redisFor(c);
        try {
          const { response, body, elapsed } = await withApp(framework, optionsOf(c, redis.limiter, logs), (get) => lastResponse(c, get, redis));
          assert.equal(response.status, c.status);
          if (c.body !== null) assert.equal(body, c.body === "app" ? "hello" : SPEC.bodies[c.body]);
          const fields = Object.fromEntries(FIELDS.filter((n) => response.headers.has(n)).map((n) => [n, response.headers.get(n)]));
          assert.deepEqual(fields, c.fields);
          if (c.log === null) assert.deepEqual(logs, []);
          else assert.ok(logs.length === 1 && logs[0][0] === c.log.level && logs[0][1].startsWith(c.log.starts), JSON.stringify(logs));
          // libuv's timers count whole ms of a loop clock read at the start of the iteration.
          if (c.redis === "paused") assert.ok(elapsed >= c.options.timeout_ms - 1 && elapsed < 5000, `answered after ${elapsed} ms`);
          if (c.redis_keys) assert.deepEqual((await ctx.admin.sendCommand(["KEYS", "*"])).sort(), c.redis_keys);
        } finally {
          await redis.close();
        }
      });
    }
  });
}
