// WinlimitStore against express-rate-limit's Store contract as its source/types.ts documents
// it (the npm package ships no tests of its own): init, get, increment, decrement, resetKey,
// prefix and localKeys, called directly over a real redis-server.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import { rateLimit } from "express-rate-limit";
import { Decision } from "winlimit";
import { WinlimitStore, infoOf } from "winlimit/express-rate-limit";
import { redisForFile } from "./support/fixture.mjs";

const ctx = redisForFile();
const W = 60_000;

function initialised(options = {}, init = { windowMs: W, limit: 3 }) {
  const store = new WinlimitStore({ limiter: ctx.limiter, ...options });
  store.init(init);
  return store;
}

describe("the Store contract", () => {
  test("express-rate-limit accepts the store: its validations log nothing", async () => {
    const logged = [];
    const logger = { error: (...a) => logged.push(a), warn: (...a) => logged.push(a) };
    rateLimit({ windowMs: W, limit: 3, store: new WinlimitStore({ limiter: ctx.limiter }), logger, validate: true });
    assert.deepEqual(logged, []);
  });

  test("init takes windowMs and a numeric limit", async () => {
    const store = initialised();
    const info = await store.increment("k");
    assert.equal(info.totalHits, 1);
    assert.equal((await ctx.limiter.slide("erl:k", W, 3, { peek: true })).remaining, 2);
  });

  test("increment: totalHits counts up from 1, resetTime is a Date when nothing counts any more", async () => {
    const store = initialised();
    const before = Date.now();
    const infos = [await store.increment("k"), await store.increment("k"), await store.increment("k")];
    assert.deepEqual(infos.map((i) => i.totalHits), [1, 2, 3]);
    for (const { resetTime } of infos) {
      assert.ok(resetTime instanceof Date);
      assert.ok(resetTime.getTime() > before && resetTime.getTime() <= Date.now() + W);
    }
  });

  test("increment past the limit: totalHits above it, resetTime when the same request is accepted", async () => {
    const store = initialised();
    for (let i = 0; i < 3; i++) await store.increment("k");
    const before = Date.now();
    const rejected = await store.increment("k");
    const after = Date.now();
    assert.equal(rejected.totalHits, 4);
    const waitMs = (await ctx.limiter.slide("erl:k", W, 3, { peek: true })).retryAfterMs;
    assert.ok(rejected.resetTime.getTime() >= before + waitMs && rejected.resetTime.getTime() <= after + W);
  });

  test("decrement gives one unit back", async () => {
    const store = initialised();
    await store.increment("k");
    await store.increment("k");
    await store.decrement("k");
    assert.equal((await store.get("k")).totalHits, 1);
    assert.equal((await store.increment("k")).totalHits, 2);
  });

  test("get: undefined for a key that holds nothing, else the hits and the reset time, counting nothing", async () => {
    const store = initialised();
    assert.equal(await store.get("k"), undefined);
    await store.increment("k");
    const info = await store.get("k");
    assert.equal(info.totalHits, 1);
    assert.ok(info.resetTime instanceof Date);
    assert.equal((await store.get("k")).totalHits, 1);
  });

  test("resetKey forgets the key", async () => {
    const store = initialised();
    await store.increment("k");
    await store.resetKey("k");
    assert.equal(await store.get("k"), undefined);
    assert.equal(await ctx.admin.exists("erl:k"), 0);
  });

  test("prefix is put before every key, and keys are not local", async () => {
    const store = initialised({ prefix: "api:" });
    assert.equal(store.prefix, "api:");
    assert.equal(store.localKeys, false);
    await store.increment("k");
    assert.deepEqual(await ctx.admin.keys("*"), ["api:k"]);
  });

  test("the store's own windowMs and limit serve without init", async () => {
    const store = new WinlimitStore({ limiter: ctx.limiter, windowMs: 1_000, limit: 1 });
    assert.equal((await store.increment("k")).totalHits, 1);
    assert.equal((await store.increment("k")).totalHits, 2);
  });

  test("without a window or limit, a call rejects with what to pass", async () => {
    await assert.rejects(new WinlimitStore({ limiter: ctx.limiter }).increment("k"), /has no window or limit/);
  });

  test("a function-valued limit fails init with a clear error, and every call after it", async () => {
    const store = new WinlimitStore({ limiter: ctx.limiter });
    assert.throws(() => store.init({ windowMs: W, limit: () => 3 }), /limit is a function/);
    await assert.rejects(store.increment("k"), /limit is a function/);
  });

  test("bad options are refused when the store is built", () => {
    assert.throws(() => new WinlimitStore({}), /limiter must be a winlimit Limiter/);
    assert.throws(() => new WinlimitStore({ limiter: ctx.limiter, limit: 0 }), /limit must be a positive integer/);
    assert.throws(() => new WinlimitStore({ limiter: ctx.limiter, algorithm: "leaky" }), /algorithm must be one of/);
  });

  test("fixed and gcra by option", async () => {
    for (const algorithm of ["fixed", "gcra"]) {
      const store = initialised({ algorithm, prefix: `${algorithm}:` });
      const hits = [];
      for (let i = 0; i < 4; i++) hits.push((await store.increment("k")).totalHits);
      assert.deepEqual(hits, [1, 2, 3, 4], algorithm);
      assert.equal(await ctx.admin.type(`${algorithm}:k`), "string");
    }
  });

  test("the record of a decision that can never be accepted waits a window", () => {
    const never = new Decision({ allowed: false, limit: 0, remaining: 0, retryAfterMs: -1, resetAfterMs: 0 });
    assert.deepEqual(infoOf(never, 1_000, W), { totalHits: 1, resetTime: new Date(1_000 + W) });
  });
});

describe("the rejections awaiting their decrement", () => {
  // The store's internal bookkeeping, from the build (it is not part of the package's API).
  const { PendingRejections } = createRequire(import.meta.url)("../dist/pending-rejections.js");

  test("each rejection skips one decrement of its key, no more, no other key's", () => {
    const pending = new PendingRejections();
    const now = Date.now();
    pending.add("a", now + W);
    pending.add("a", now + W);
    assert.deepEqual([pending.take("b", now), pending.take("a", now), pending.take("a", now), pending.take("a", now)], [false, true, true, false]);
  });

  test("a rejection is forgotten once express-rate-limit would no longer decrement it (its resetTime, and a second's grace)", () => {
    const pending = new PendingRejections();
    const now = Date.now();
    pending.add("a", now + 100);
    assert.equal(pending.take("a", now + 100 + 1_000), false);
    pending.add("a", now + 100);
    assert.equal(pending.take("a", now + 100 + 999), true);
  });
});
