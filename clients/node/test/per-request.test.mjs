// check(limiter, key, req): limits that depend on the request; two tiers chosen by a request
// header, on Express and Fastify served by their real HTTP servers over a real redis-server.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";
import { redisForFile } from "./support/fixture.mjs";

const W = 60_000;
const LIMITS = { free: 1, paid: 3 };
const ctx = redisForFile();

const tiered = (l, key, req) => {
  const tier = req.headers["x-tier"] ?? "free";
  return l.fixed(key, W, LIMITS[tier], { name: tier });
};

for (const framework of Object.keys(FRAMEWORKS)) {
  describe(framework, () => {
    test("two tiers chosen by a header get their own limits", async () => {
      const options = { limiter: ctx.limiter, check: tiered, key: (req) => req.headers["x-user"] };
      const [free, paid] = await withApp(framework, options, async (get) => {
        const a = [];
        for (let i = 0; i < 2; i++) a.push(await get("/", { "x-user": "a" }));
        const b = [];
        for (let i = 0; i < 4; i++) b.push(await get("/", { "x-user": "b", "x-tier": "paid" }));
        return [a, b];
      });
      assert.deepEqual(free.map((r) => r.status), [200, 429]);
      assert.deepEqual(paid.map((r) => r.status), [200, 200, 200, 429]);
      assert.equal(free[0].headers.get("RateLimit-Policy"), '"free";q=1;w=60');
      assert.equal(paid[0].headers.get("RateLimit-Policy"), '"paid";q=3;w=60');
    });
  });
}
