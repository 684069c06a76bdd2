// limiter.reset(key): the key deleted and its cached rejections forgotten, and "unblock this
// user now" under a running Express or Fastify app on its real HTTP server, over a real
// redis-server whose INFO commandstats counts what reached it.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";
import { sentAs } from "./support/backend.mjs";
import { redisForFile, testLimiter } from "./support/fixture.mjs";

const W = 60_000;
const ctx = redisForFile({ resetStats: true });
const caching = () => testLimiter(ctx.connection.client, { cacheRejections: true });

async function calls(command) {
  const stats = await ctx.admin.sendCommand(["INFO", "commandstats"]);
  const line = stats.match(new RegExp(`^cmdstat_${sentAs(command)}:calls=(\\d+)`, "m"));
  return line ? Number(line[1]) : 0;
}

test("reset deletes the key and resolves to whether there was one", async () => {
  await ctx.limiter.slide("k", W, 3);
  assert.equal(await ctx.limiter.reset("k"), true);
  assert.equal(await ctx.admin.sendCommand(["EXISTS", "k"]), 0);
  assert.equal(await ctx.limiter.reset("k"), false);
});

const CALLS = {
  slide: (l, key) => l.slide(key, W, 1),
  fixed: (l, key) => l.fixed(key, W, 1, { align: true }),
  gcra: (l, key) => l.gcra(key, W, 1),
};
for (const [method, call] of Object.entries(CALLS)) {
  test(`a rejected and cached key is accepted at once after reset: ${method}`, async () => {
    const limiter = caching();
    await call(limiter, "k");
    assert.equal((await call(limiter, "k")).allowed, false);
    assert.equal((await call(limiter, "k")).cached, true);
    assert.equal(await limiter.reset("k"), true);
    const d = await call(limiter, "k");
    assert.deepEqual([d.allowed, d.cached], [true, false]);
  });
}

test("reset forgets every cached line of the key and no other", async () => {
  const limiter = caching();
  for (const cost of [1, 2]) {
    await limiter.fixed("k", W, 2, { cost: 2 });
    await limiter.fixed("k", W, 2, { cost });
  }
  await limiter.fixed("other", W, 1);
  await limiter.fixed("other", W, 1);
  await limiter.reset(Buffer.from("k")); // the key's bytes name the same key
  const before = await calls("winlimit.fixed");
  const cached = [];
  for (const cost of [1, 2]) cached.push((await limiter.fixed("k", W, 2, { cost })).cached);
  assert.deepEqual(cached, [false, false]);
  assert.equal((await limiter.fixed("other", W, 1)).cached, true);
  assert.equal((await calls("winlimit.fixed")) - before, 2);
});

test("reset refuses a key that is not a string or a Buffer", async () => {
  await assert.rejects(ctx.limiter.reset(42), TypeError);
});

for (const framework of Object.keys(FRAMEWORKS)) {
  describe(framework, () => {
    test("a rejected and cached client is accepted at once after reset", async () => {
      const limiter = caching();
      const statuses = await withApp(framework, { limiter, check: (l, key) => l.fixed(key, W, 1) }, async (get) => {
        const out = [];
        for (let i = 0; i < 3; i++) out.push((await get()).status);
        assert.equal(await limiter.reset("rl:127.0.0.1"), true);
        out.push((await get()).status);
        return out;
      });
      assert.deepEqual(statuses, [200, 429, 429, 200]);
      // The third request was answered from the cache.
      assert.equal(await calls("winlimit.fixed"), 3);
    });
  });
}
