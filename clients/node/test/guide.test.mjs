// The code of docs/guides/node.md (test/guide/pieces.mjs, which the guide includes) does what
// the guide says: each app served by Express or Fastify on a real HTTP server and fetched,
// each call run on a real redis-server.

import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import express from "express";
import Fastify from "fastify";
import { Registry } from "prom-client";
import { Limiter } from "winlimit";
import * as guide from "./guide/pieces.mjs";
import { redisForFile } from "./support/fixture.mjs";
import { waitUntil } from "./support/ready.mjs";

const ctx = redisForFile();

/** Serves the Express app `build(app)` adds to, fetches each [method, path, init] in turn. */
async function served(build, requests) {
  const app = express();
  app.use(express.json());
  const built = await build(app);
  app.all("/", (req, res) => res.send("ok"));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const answers = [];
    for (const [method, path, init = {}] of requests) {
      answers.push(await fetch(`http://127.0.0.1:${server.address().port}${path}`, { method, ...init }));
    }
    return { built, answers, statuses: answers.map((a) => a.status) };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const gets = (n, init) => Array.from({ length: n }, () => ["GET", "/", init]);

async function fastifyServed(build, n) {
  const app = Fastify();
  await build(app);
  app.get("/", async () => "ok");
  await app.listen({ port: 0, host: "127.0.0.1" });
  try {
    const answers = [];
    const started = performance.now();
    for (let i = 0; i < n; i++) answers.push(await fetch(`http://127.0.0.1:${app.server.address().port}/`));
    return { answers, elapsedMs: performance.now() - started };
  } finally {
    await app.close();
  }
}

// 100 a minute earns a unit back every 600 ms: the claim holds for 11 requests sent within
// that time, so a run a loaded machine stretched past it is tried again on an empty keyspace.
const EMISSION_MS = 60_000 / 100;

test("the Fastify plugin limits every request: a burst of 10", async () => {
  const statuses = await waitUntil(async () => {
    await ctx.admin.sendCommand(["FLUSHALL"]);
    const { answers, elapsedMs } = await fastifyServed((app) => guide.fastifyEveryRequest(app, ctx.limiter), 11);
    return elapsedMs < EMISSION_MS && answers.map((a) => a.status);
  }, `11 requests within ${EMISSION_MS} ms`);
  assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
});

test("failed logins count and the fifth blocks; good ones are refunded", async () => {
  const post = (password) => ["POST", "/login", { headers: { "content-type": "application/json" }, body: JSON.stringify({ user: "ann", password }) }];
  const { statuses } = await served((app) => guide.login(app, ctx.limiter),
    [...Array(6).fill(post("right")), ...Array(5).fill(post("wrong")), post("right")]);
  assert.deepEqual(statuses, [...Array(6).fill(200), ...Array(5).fill(401), 429]);
});

test("each tier gets its own limit", async () => {
  const paid = { headers: { "x-api-tier": "paid" } };
  const { statuses, answers } = await served((app) => guide.tiers(app, ctx.limiter), [...gets(3), ...gets(4, paid)]);
  assert.deepEqual(statuses, [200, 200, 429, 200, 200, 429, 429]);
  assert.equal(answers[0].headers.get("ratelimit-policy"), '"free";q=2;w=60');
});

test("legacy headers", async () => {
  const { answers } = await served((app) => guide.legacy(app, ctx.limiter), gets(1));
  assert.equal(answers[0].headers.get("x-ratelimit-remaining"), "2");
});

test("a custom rejection: Express's JSON and Fastify's", async () => {
  const { answers } = await served((app) => guide.expressHandler(app, ctx.limiter), gets(4));
  const body = await answers[3].json();
  assert.deepEqual([answers[3].status, body.error, body.retryAfterMs > 0], [429, "rate limited", true]);
  await ctx.admin.sendCommand(["FLUSHALL"]);
  const { answers: fastify } = await fastifyServed((app) => guide.fastifyHandler(app, ctx.limiter), 4);
  assert.deepEqual([fastify[3].status, await fastify[3].json()], [429, { error: "rate limited" }]);
});

test("ipKey: an IPv6 client is its network", async () => {
  const { statuses } = await served((app) => guide.ipKeys(app, ctx.limiter),
    ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2::3", "2001:db8:1:2::4", "2001:db8:9::1"]
      .map((ip) => ["GET", "/", { headers: { "x-real-ip": ip } }]));
  assert.deepEqual(statuses, [200, 200, 200, 429, 200]);
});

test("the breaker's options make a limiter that decides", async () => {
  const limiter = guide.breaker(ctx.connection.client, console);
  assert.equal((await limiter.slide("k", 1_000, 1)).allowed, true);
});

test("the fallback decides while Redis is down", async () => {
  const down = new Limiter({ sendCommand: async () => { throw new Error("connect ECONNREFUSED"); } }, { backend: "module" });
  const { statuses } = await served((app) => guide.fallback(app, down), gets(4));
  assert.deepEqual(statuses, [200, 200, 200, 429]);
});

test("shadow mode lets everything through and counts what it would reject", async () => {
  const { built, statuses } = await served((app) => guide.shadow(app, ctx.limiter), gets(5));
  assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
  assert.equal(built.shadowRejections, 2);
});

test("the metrics count decisions by outcome", async () => {
  const registry = new Registry();
  await served((app) => guide.metrics(app, ctx.limiter, registry), gets(4));
  const text = await registry.metrics();
  assert.match(text, /winlimit_decisions_total\{policy="winlimit",outcome="allowed"\} 3/);
  assert.match(text, /winlimit_decisions_total\{policy="winlimit",outcome="rejected"\} 1/);
});

test("every backend decides", async () => {
  const limiter = await guide.backends(ctx.connection.client);
  assert.equal((await limiter.slide("k", 60_000, 10)).remaining, 8); // the guide's call, then this one
});

test("calls", async () => {
  const d = await guide.calls(ctx.connection.client);
  assert.deepEqual([d.allowed, d.limit, d.remaining, d.policy.name], [true, 3, 2, "winlimit"]);
});

test("a job the API refused gives its unit back", async () => {
  const api = express().post("/", (req, res) => res.sendStatus(429)).listen(0, "127.0.0.1");
  await once(api, "listening");
  try {
    await guide.refund(ctx.limiter, `http://127.0.0.1:${api.address().port}/`, "job");
  } finally {
    api.close();
  }
  const d = await ctx.limiter.gcra("jobs:acme", 60_000, 100, { peek: true });
  assert.equal(d.remaining, d.limit);
});

test("waiting for a turn", async () => {
  const d = await guide.wait(ctx.limiter);
  assert.deepEqual([d.allowed, d.waitedMs], [true, 0]);
});

test("a cached rejection is answered locally", async () => {
  const limiter = guide.cache(ctx.connection.client);
  await limiter.slide("k", 60_000, 1);
  await limiter.slide("k", 60_000, 1);
  assert.equal((await limiter.slide("k", 60_000, 1)).cached, true);
});

test("reset unblocks an address", async () => {
  const { statuses, answers } = await served((app) => {
    app.get("/", guide.rateLimit({ limiter: ctx.limiter, check: guide.check }), (req, res) => res.send("ok"));
    guide.unblock(app, ctx.limiter);
  }, [...gets(4), ["POST", "/admin/unblock/127.0.0.1"], ...gets(1)]);
  assert.deepEqual(statuses, [200, 200, 200, 429, 200, 200]);
  assert.deepEqual(await answers[4].json(), { removed: true });
});

test("the storages of @nestjs/throttler and express-rate-limit", async () => {
  const { built, statuses } = await served((app) => guide.storages(app, ctx.connection.client), gets(4));
  assert.deepEqual(statuses, [200, 200, 200, 429]);
  assert.ok(JSON.stringify(built.providers ?? []).length > 0);
});

test("the header fields a first call gets", async () => {
  assert.deepEqual(await guide.headers(ctx.limiter), { "RateLimit-Policy": '"winlimit";q=100;w=60', RateLimit: '"winlimit";r=99;t=60' });
});
