// The Grafana dashboard and the Prometheus rules (docs/grafana, docs/prometheus) query only
// what this client exports: after real decisions against a real redis-server (allowed and
// rejected) and the fallback's (that server stopped, the breaker open), the Metrics'
// registry is served on a real HTTP server, scraped with fetch, and every metric and label of
// clients/spec/dashboard_queries.json (extracted from the queries by
// scripts/dashboard_queries.py) is in the scrape.

import assert from "node:assert/strict";
import http from "node:http";
import { before, test } from "node:test";
import { Registry } from "prom-client";
import { Limiter, MemoryLimiter } from "winlimit";
import { Metrics } from "winlimit/metrics";
import { LIBRARIES } from "./support/clients.mjs";
import { RedisServer } from "./support/servers.mjs";
import { load } from "./support/spec.mjs";

const QUERIED = load("dashboard_queries.json");
const W = 60_000;

/** Three calls to a limit of two, in order. */
async function threeCalls(limiter) {
  const out = [];
  for (let i = 0; i < 3; i++) out.push((await limiter.fixed("user:1", W, 2, { name: "api" })).allowed);
  return out;
}

/** The registry's text as a real HTTP server serves it to fetch. */
async function scrape(registry) {
  const server = http.createServer(async (_req, res) => res.end(await registry.metrics()));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await (await fetch(`http://127.0.0.1:${server.address().port}/metrics`)).text();
  } finally {
    server.close();
    server.closeAllConnections(); // fetch keeps its connection alive: it would hold the process open
  }
}

/** The samples of a scrape: [name, {label: value}]. */
function samples(text) {
  return text.split("\n").filter((line) => line && !line.startsWith("#")).map((line) => {
    const [, name, labels = ""] = line.match(/^(\w+)(?:\{(.*)\})? /);
    return [name, Object.fromEntries([...labels.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))];
  });
}

let scraped;
before(async () => {
  const registry = new Registry();
  const server = await RedisServer.start();
  const connection = await LIBRARIES["node-redis 6"].plain(server.port, { socket: { reconnectStrategy: false } });
  try {
    const options = { metrics: new Metrics({ registry }), fallback: new MemoryLimiter(), failures: 1, openMs: W, logger: () => {} };
    const limiter = new Limiter(connection.client, options);
    assert.deepEqual(await threeCalls(limiter), [true, true, false]);
    await server.stop();
    assert.deepEqual(await threeCalls(limiter), [true, true, false]);
  } finally {
    await connection.close().catch(() => {}); // the server is gone: closing may fail
  }
  scraped = samples(await scrape(registry));
});

test("the scrape holds allowed, rejected and fallback decisions", () => {
  const outcomes = scraped.filter(([name]) => name === "winlimit_decisions_total").map(([, labels]) => labels.outcome);
  assert.deepEqual(new Set(outcomes), new Set(["allowed", "rejected", "fallback"]));
});

test("the scrape holds the open breaker", () => {
  assert.ok(scraped.some(([name, labels]) => name === "winlimit_breaker_state" && labels.limiter === "winlimit"));
});

for (const [metric, labels] of Object.entries(QUERIED)) {
  test(`every label a query names is on ${metric}`, () => {
    const carried = new Set(scraped.filter(([name]) => name === metric).flatMap(([, l]) => Object.keys(l)));
    assert.ok(carried.size > 0, `${metric} is not exported`);
    for (const label of labels) assert.ok(carried.has(label), `${metric} has no label ${label}`);
  });
}
