// docs/migration/rate-limit-redis.md's before (test/migration/rate-limit-redis-before.mjs):
// express-rate-limit with rate-limit-redis's store in a real Express app over a real
// redis-server, served on loopback and called with fetch.

import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import express from "express";
import { before } from "./migration/rate-limit-redis-before.mjs";
import { redisForFile } from "./support/fixture.mjs";

const ctx = redisForFile();

/** Serves the before's middleware; the statuses of `n` GETs by client c1. */
async function statuses(n) {
  const app = express();
  app.use(before(ctx.connection.client, (req) => String(req.headers["x-client"])));
  app.get("/", (_req, res) => res.type("text/plain").send("hello"));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const out = [];
    for (let i = 0; i < n; i++) {
      out.push((await fetch(`http://127.0.0.1:${server.address().port}/`, { headers: { "x-client": "c1" } })).status);
    }
    return out;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

test("rate-limit-redis lets three a minute through and refuses the fourth with 429", async () => {
  assert.deepEqual(await statuses(4), [200, 200, 200, 429]);
});

test("rate-limit-redis keeps a fixed-window counter per client in Redis", async () => {
  await statuses(2);
  assert.equal(await ctx.admin.sendCommand(["GET", "rl:c1"]), "2");
  const ttl = Number(await ctx.admin.sendCommand(["PTTL", "rl:c1"]));
  assert.ok(ttl > 0 && ttl <= 60_000, `PTTL ${ttl}`);
});
