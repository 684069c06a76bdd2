// cacheRejections on a real server, counted by the server itself (INFO commandstats): a
// rejection answers the same command line locally until its retryAfterMs ends.

import assert from "node:assert/strict";
import { test } from "node:test";
import { sentAs } from "./support/backend.mjs";
import { redisForFile, testLimiter } from "./support/fixture.mjs";

const W = 60_000;
const ctx = redisForFile({ library: "ioredis 6", resetStats: true });

const caching = (options = {}) => testLimiter(ctx.connection.client, { cacheRejections: true, ...options });

/** The calls the server has seen of `command` (as the suite's backend sends it) since the
 * last CONFIG RESETSTAT. */
async function calls(command) {
  const stats = await ctx.admin.sendCommand(["INFO", "commandstats"]);
  const line = stats.match(new RegExp(`^cmdstat_${sentAs(command)}:calls=(\\d+)`, "m"));
  return line ? Number(line[1]) : 0;
}

test("1,000 identical rejected calls within retryAfterMs reach Redis once", async () => {
  const limiter = caching();
  assert.equal((await limiter.slide("k", W, 1)).allowed, true);
  const decisions = [];
  for (let i = 0; i < 1000; i++) decisions.push(await limiter.slide("k", W, 1));
  assert.equal(await calls("winlimit.slide"), 2);
  assert.ok(decisions.every((d) => !d.allowed && d.limit === 1 && d.remaining === 0));
  assert.deepEqual(decisions.map((d) => d.cached), [false, ...Array(999).fill(true)]);
  // The cached answers count down from the server's, never below 1.
  const retries = decisions.map((d) => d.retryAfterMs);
  assert.ok(retries.every((r, i) => r >= 1 && (i === 0 || r <= retries[i - 1])));
  assert.ok(decisions.every((d) => d.resetAfterMs <= decisions[0].resetAfterMs));
  assert.deepEqual(decisions[999].headers()["RateLimit-Policy"], '"winlimit";q=1;w=60');
});

test("the first call after the entry ends reaches Redis and is accepted", async () => {
  const limiter = caching();
  await limiter.fixed("k", 300, 1);
  const rejected = await limiter.fixed("k", 300, 1);
  assert.ok(!rejected.allowed && !rejected.cached && rejected.retryAfterMs > 0);
  const receivedAt = performance.now();
  assert.equal((await limiter.fixed("k", 300, 1)).cached, true);
  // Sleep what the reply said, from when it arrived.
  await new Promise((resolve) => setTimeout(resolve, rejected.retryAfterMs - (performance.now() - receivedAt) + 1));
  const d = await limiter.fixed("k", 300, 1);
  assert.deepEqual([d.allowed, d.cached], [true, false]);
  assert.equal(await calls("winlimit.fixed"), 3);
});

test("a different cost, option or key reaches Redis; the same command line under another name does not", async () => {
  const limiter = caching();
  await limiter.gcra("k", W, 2, { cost: 2 });
  assert.equal((await limiter.gcra("k", W, 2)).cached, false);
  assert.equal((await limiter.gcra("k", W, 2)).cached, true);
  assert.equal((await limiter.gcra("k", W, 2, { cost: 2 })).cached, false);
  assert.equal((await limiter.gcra("k", W, 2, { burst: 1 })).cached, false);
  assert.equal((await limiter.gcra("other", W, 2)).allowed, true);
  assert.equal(await calls("winlimit.gcra"), 5);
  // Same command line, another name: answered locally, under the new call's policy.
  assert.equal((await limiter.gcra("k", W, 2, { name: "api" })).policy.name, "api");
  assert.equal(await calls("winlimit.gcra"), 5);
});

test("peeks are never answered from the cache, nor stored in it", async () => {
  const limiter = caching();
  await limiter.slide("k", W, 1);
  // Counted as differences: the scripts send both as EVALSHA.
  const peeksBefore = await calls("winlimit.slide_ro");
  for (let i = 0; i < 3; i++) assert.equal((await limiter.slide("k", W, 1, { peek: true })).cached, false);
  assert.equal((await calls("winlimit.slide_ro")) - peeksBefore, 3);
  const before = await calls("winlimit.slide");
  assert.equal((await limiter.slide("k", W, 1)).cached, false);
  assert.equal((await calls("winlimit.slide")) - before, 1);
});

test("the cache holds at most cacheSize entries, the oldest dropped first", async () => {
  const limiter = caching({ cacheSize: 3 });
  const keys = ["a", "b", "c", "d", "e"];
  for (const key of keys) {
    await limiter.fixed(key, W, 1);
    assert.equal((await limiter.fixed(key, W, 1)).cached, false);
  }
  // a and b were dropped to make room for d and e; c, d and e are still answered locally.
  const cached = {};
  for (const key of ["c", "d", "e", "a", "b"]) cached[key] = (await limiter.fixed(key, W, 1)).cached;
  assert.deepEqual(cached, { c: true, d: true, e: true, a: false, b: false });
});

test("an entry that has ended makes room before one still in force is dropped", async () => {
  const limiter = caching({ cacheSize: 2 });
  for (const [key, window] of [["long", W], ["short", 200]]) {
    await limiter.fixed(key, window, 1);
    await limiter.fixed(key, window, 1);
  }
  // "long" is the oldest entry, "short" ends first: wait until it has, as the server said.
  const { retryAfterMs } = await limiter.fixed("short", 200, 1);
  await new Promise((resolve) => setTimeout(resolve, retryAfterMs + 5));
  await limiter.fixed("third", W, 1);
  await limiter.fixed("third", W, 1);
  assert.equal((await limiter.fixed("long", W, 1)).cached, true);
  assert.equal((await limiter.fixed("third", W, 1)).cached, true);
});

test("without cacheRejections every call reaches Redis", async () => {
  const limiter = testLimiter(ctx.connection.client);
  for (let i = 0; i < 5; i++) await limiter.fixed("k", W, 1);
  assert.equal(await calls("winlimit.fixed"), 5);
});
