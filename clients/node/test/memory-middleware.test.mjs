// An in-process MemoryLimiter as the limiter of every middleware (Express, Fastify), for
// development and single-process apps, as express-rate-limit's MemoryStore is used: the
// seeds' "3 SMS an hour per user" on a real HTTP server with fetch. No Redis: a memory
// limiter has no timeout, breaker or fallback, and refuses one.

import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryLimiter } from "winlimit";
import { rateLimit } from "winlimit/express";
import { winlimitHook } from "winlimit/fastify";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";

const HOUR = 3_600_000;
const options = (limiter) => ({
  limiter,
  check: (l, key) => l.slide(key, HOUR, 3, { name: "sms" }),
  key: (request) => request.headers["x-user"],
});

for (const framework of Object.keys(FRAMEWORKS)) {
  test(`${framework}: a memory limiter limits a user to three SMS an hour`, async () => {
    await withApp(framework, options(new MemoryLimiter()), async (get) => {
      const sent = [];
      for (let i = 0; i < 4; i++) sent.push(await get("/", { "x-user": "+4915112345678" }));
      const other = await get("/", { "x-user": "+4915199999999" });
      assert.deepEqual(sent.map((r) => r.status), [200, 200, 200, 429]);
      assert.equal(sent[2].headers.get("ratelimit"), '"sms";r=0;t=3600');
      assert.equal(sent[3].headers.get("retry-after"), "3600");
      assert.equal(other.status, 200);
    });
  });
}

for (const [framework, make] of [["express", rateLimit], ["fastify", winlimitHook]]) {
  test(`${framework}: a memory limiter refuses a fallback`, () => {
    assert.throws(() => make({ ...options(new MemoryLimiter()), fallback: new MemoryLimiter() }),
      /a MemoryLimiter decides in this process/);
  });
}
