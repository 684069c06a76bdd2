// The header styles every client shares (clients/spec/header_styles.json): the fields each
// style gives for a decision, how two middlewares' fields combine, and, on Express and
// Fastify served by their real HTTP servers over a real redis-server, each style sending
// exactly its fields and two stacked middlewares listing both policies. The Python client's
// tests read the same file (test_spec_header_styles.py).

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { once } from "node:events";
import { describe, test } from "node:test";
import express from "express";
import Fastify from "fastify";
import { Decision } from "winlimit";
import { rateLimit } from "winlimit/express";
import { winlimitHook } from "winlimit/fastify";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";
import { redisForFile } from "./support/fixture.mjs";
import { build, load } from "./support/spec.mjs";

const require = createRequire(import.meta.url);
const { FIELDS, fields, merged } = require("../dist/styles.js");
const SPEC = load("header_styles.json");
const STYLES = { "draft-11": "draft-11", "draft-7": "draft-7", legacy: "legacy", null: null };
const W = 60_000;
const ctx = redisForFile();

const decisionOf = (spec) => Decision.fromReply(spec.reply, build(spec.call).policies);

for (const c of SPEC.cases) {
  for (const [name, style] of Object.entries(STYLES)) {
    test(`a decision gives the fields of its style: ${c.name}, ${name}`, () => {
      assert.deepEqual(fields(decisionOf(c), style, c.now_ms), c.fields[name]);
    });
  }
}

for (const c of SPEC.stacked) {
  for (const [name, style] of Object.entries(STYLES)) {
    test(`two middlewares' fields combine as the style says: ${c.name}, ${name}`, () => {
      const on = fields(decisionOf(c.on), style, c.now_ms);
      const added = fields(decisionOf(c.added), style, c.now_ms);
      assert.deepEqual(merged(on, added, style), c.fields[name]);
    });
  }
}

for (const style of SPEC.bad_styles) {
  test(`a style not in the spec is refused: ${JSON.stringify(style)}`, () => {
    const options = { limiter: ctx.limiter, check: () => undefined, headers: style };
    assert.throws(() => rateLimit(options), /headers must be one of/);
    assert.throws(() => winlimitHook(options), /headers must be one of/);
  });
}

const twiceAMinute = (l, key) => l.fixed(key, W, 2);
const rateLimitFields = (response) => Object.fromEntries(FIELDS.filter((n) => response.headers.has(n)).map((n) => [n, response.headers.get(n)]));

/** `count` GETs, each with the wall clock in ms just before and after it. A field's reset is
 * whole seconds rounded up, so a run that spans a second or more (a loaded machine) shows one
 * less: it is run again, on an empty Redis, until one fits in a second. */
async function requests(framework, options, count) {
  for (let tries = 0; tries < 20; tries++) {
    await ctx.admin.sendCommand(["FLUSHALL"]);
    const out = await withApp(framework, { limiter: ctx.limiter, check: twiceAMinute, ...options }, async (get) => {
      const sent = [];
      for (let i = 0; i < count; i++) {
        const before = Date.now();
        const response = await get();
        sent.push([before, response, Date.now()]);
      }
      return sent;
    });
    if (out.at(-1)[2] - out[0][0] < 1000) return out;
  }
  throw new Error(`no run of ${count} requests took under a second in 20 tries`);
}

/** An app limited by two middlewares (Express) or hooks (Fastify); one GET's response. */
async function stacked(framework, layers) {
  let url;
  let close;
  if (framework === "express") {
    const app = express();
    for (const options of layers) app.use(rateLimit({ limiter: ctx.limiter, ...options }));
    app.get("/", (req, res) => res.send("hello"));
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${server.address().port}/`;
    close = () => new Promise((resolve) => server.close(resolve));
  } else {
    const app = Fastify();
    for (const options of layers) app.addHook("onRequest", winlimitHook({ limiter: ctx.limiter, ...options }));
    app.get("/", async () => "hello");
    await app.listen({ port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${app.server.address().port}/`;
    close = () => app.close();
  }
  try {
    return await fetch(url);
  } finally {
    await close();
  }
}

const PER_MINUTE = { check: (l, key) => l.fixed(key, W, 100, { name: "per-minute" }), prefix: "minute:" };
const PER_SECOND = { check: (l, key) => l.slide(key, 1000, 5, { name: "per-second" }), prefix: "second:" };

for (const framework of Object.keys(FRAMEWORKS)) {
  describe(framework, () => {
    test("draft-7 sends its two fields", async () => {
      const sent = await requests(framework, { headers: "draft-7" }, 3);
      assert.deepEqual(sent.map(([, r]) => rateLimitFields(r)), [
        { "RateLimit-Policy": "2;w=60", RateLimit: "limit=2, remaining=1, reset=60" },
        { "RateLimit-Policy": "2;w=60", RateLimit: "limit=2, remaining=0, reset=60" },
        { "RateLimit-Policy": "2;w=60", RateLimit: "limit=2, remaining=0, reset=60", "Retry-After": "60" },
      ]);
    });

    test("legacy sends X-RateLimit-* with the reset in Unix seconds", async () => {
      const [[before, first, after], , [, rejected]] = await requests(framework, { headers: "legacy" }, 3);
      // The first call opens the window: it resets a minute after the response was made.
      const reset = Number(first.headers.get("X-RateLimit-Reset"));
      assert.ok(Math.ceil((before + W) / 1000) <= reset && reset <= Math.ceil((after + W) / 1000), String(reset));
      assert.deepEqual(rateLimitFields(first), { "X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "1", "X-RateLimit-Reset": String(reset) });
      assert.equal(rejected.status, 429);
      const { "X-RateLimit-Reset": _, ...rest } = rateLimitFields(rejected);
      assert.deepEqual(rest, { "X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "0", "Retry-After": "60" });
    });

    test("null sends no fields but Retry-After on a 429", async () => {
      const sent = await requests(framework, { headers: null }, 3);
      assert.deepEqual(sent.map(([, r]) => [r.status, rateLimitFields(r)]), [[200, {}], [200, {}], [429, { "Retry-After": "60" }]]);
    });

    test("two stacked middlewares list both policies under draft-11", async () => {
      const response = await stacked(framework, [PER_MINUTE, PER_SECOND]);
      assert.deepEqual(rateLimitFields(response), {
        "RateLimit-Policy": '"per-minute";q=100;w=60, "per-second";q=5;w=1',
        RateLimit: '"per-minute";r=99;t=60, "per-second";r=4;t=1',
      });
    });

    test("two stacked middlewares show the least remaining under draft-7", async () => {
      const response = await stacked(framework, [{ ...PER_MINUTE, headers: "draft-7" }, { ...PER_SECOND, headers: "draft-7" }]);
      assert.deepEqual(rateLimitFields(response), { "RateLimit-Policy": "5;w=1", RateLimit: "limit=5, remaining=4, reset=1" });
    });
  });
}
