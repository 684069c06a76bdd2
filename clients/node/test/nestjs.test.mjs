// winlimit/nestjs: a real NestJS application (@nestjs/core on @nestjs/platform-express)
// whose @nestjs/throttler decides on WinlimitThrottlerStorage over a real redis-server,
// served on loopback and called with fetch; waits come from the server's own timing fields.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { WinlimitThrottlerStorage, recordOf } from "winlimit/nestjs";
import { Decision } from "winlimit";
import { redisForFile } from "./support/fixture.mjs";
import { nestApp } from "./support/nest-app.mjs";

const ctx = redisForFile();

async function withNest(options, body) {
  const app = await nestApp({ storage: new WinlimitThrottlerStorage(ctx.limiter, options.storageOptions), ...options });
  try {
    return await body(app);
  } finally {
    await app.close();
  }
}

/** The one Redis key the storage wrote for `throttler` (the guard hashes its own key). */
async function keyOf(throttler) {
  const keys = await ctx.admin.keys(`throttler:${throttler}:*`);
  assert.equal(keys.length, 1, `one key for ${throttler}: ${keys}`);
  return keys[0];
}

const header = (response, name) => response.headers.get(name);
const numberHeader = (response, name) => Number(response.headers.get(name));

describe("WinlimitThrottlerStorage in a NestJS app", () => {
  /** A at the start of a window, B half a window later, C rejected; then, once the server
   * says C would pass (A's end for the sliding window, the window's end for a fixed one), D.
   * Resolves to D's response and the scores of the units the key holds (FIXED: none). */
  async function acrossTheBoundary(algorithm, ttl, limit) {
    return withNest({ throttlers: [{ ttl, limit, blockDuration: 0 }], storageOptions: { algorithm } }, async ({ get }) => {
      assert.equal((await get()).status, 200); // A
      const key = await keyOf("default");
      const peek = () => ctx.limiter[algorithm](key, ttl, limit, { peek: true });
      await sleep(Math.max(0, (await peek()).resetAfterMs - ttl / 2));
      assert.equal((await get()).status, 200); // B
      const rejected = await get(); // C
      assert.equal(rejected.status, 429);
      const wait = await peek();
      assert.ok(numberHeader(rejected, "Retry-After") >= Math.ceil(wait.retryAfterMs / 1000));
      await sleep(wait.retryAfterMs);
      const d = await get();
      assert.equal(d.status, 200);
      const scores = algorithm === "slide" ? (await ctx.admin.zRangeWithScores(key, 0, -1)).map((m) => m.score).filter(Number.isFinite) : [];
      return { d, scores };
    });
  }

  test("the limit is exact across a window boundary, where a fixed window would admit double", async () => {
    const [ttl, limit] = [2_000, 2];
    const { d, scores } = await acrossTheBoundary("slide", ttl, limit);
    // D's remaining, decided with D, is what the server's stored times say counts at D:
    // B (accepted half a window after A) still does, unless this machine took half a window.
    const dAt = Math.max(...scores);
    const counting = scores.filter((t) => t > dAt - ttl).length;
    assert.equal(numberHeader(d, "X-RateLimit-Remaining"), limit - counting);
    for (const s of scores) assert.ok(scores.filter((t) => t > s - ttl && t <= s).length <= limit, `${scores}`);
  });

  test("the same requests on a fixed window: past its end the whole limit is back", async () => {
    const [ttl, limit] = [1_000, 2];
    const { d } = await acrossTheBoundary("fixed", ttl, limit);
    // B and D are less than a window apart, yet D leaves room for another.
    assert.equal(numberHeader(d, "X-RateLimit-Remaining"), limit - 1);
  });

  test("blockDuration refuses the key for its length, longer than the window", async () => {
    await withNest({ throttlers: [{ ttl: 1_000, limit: 1, blockDuration: 30_000 }] }, async ({ get }) => {
      assert.equal((await get()).status, 200);
      const blocked = await get();
      assert.equal(blocked.status, 429);
      // The block's time, not the 1 s window's.
      assert.ok(numberHeader(blocked, "Retry-After") > 1 && numberHeader(blocked, "Retry-After") <= 30);
      const key = await keyOf("default");
      const peek = await ctx.limiter.slide(key, 1_000, 1, { peek: true });
      assert.ok(peek.retryAfterMs > 1_000 && peek.retryAfterMs <= 30_000, `${peek.retryAfterMs}`);
      assert.equal((await get()).status, 429);
    });
  });

  test("blockDuration 0 sends no BLOCK: the key holds no block", async () => {
    await withNest({ throttlers: [{ ttl: 60_000, limit: 1, blockDuration: 0 }] }, async ({ get }) => {
      assert.equal((await get()).status, 200);
      assert.equal((await get()).status, 429);
      const members = await ctx.admin.zRange(await keyOf("default"), 0, -1);
      assert.equal(members.filter((m) => m.startsWith("block:")).length, 0);
    });
  });

  test("the guard's default blockDuration (the ttl) sends a BLOCK", async () => {
    await withNest({ throttlers: [{ ttl: 60_000, limit: 1 }] }, async ({ get }) => {
      assert.equal((await get()).status, 200);
      assert.equal((await get()).status, 429);
      const members = await ctx.admin.zRange(await keyOf("default"), 0, -1);
      assert.equal(members.filter((m) => m.startsWith("block:")).length, 1);
    });
  });

  test("the X-RateLimit fields and Retry-After tell the server's decision", async () => {
    await withNest({ throttlers: [{ ttl: 60_000, limit: 3, blockDuration: 0 }] }, async ({ get }) => {
      const responses = [];
      for (let i = 0; i < 4; i++) responses.push(await get());
      assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 429]);
      assert.deepEqual(responses.slice(0, 3).map((r) => header(r, "X-RateLimit-Limit")), ["3", "3", "3"]);
      assert.deepEqual(responses.slice(0, 3).map((r) => header(r, "X-RateLimit-Remaining")), ["2", "1", "0"]);
      for (const r of responses.slice(0, 3)) assert.ok(numberHeader(r, "X-RateLimit-Reset") >= 59 && numberHeader(r, "X-RateLimit-Reset") <= 60);
      const peek = await ctx.limiter.slide(await keyOf("default"), 60_000, 3, { peek: true });
      const retryAfter = numberHeader(responses[3], "Retry-After");
      assert.ok(retryAfter >= Math.ceil(peek.retryAfterMs / 1000) && retryAfter <= 60, `${retryAfter} vs ${peek.retryAfterMs} ms`);
    });
  });

  test("two named throttlers count apart, each with its own fields", async () => {
    const throttlers = [
      { name: "burst", ttl: 60_000, limit: 2, blockDuration: 0 },
      { name: "sustained", ttl: 3_600_000, limit: 5, blockDuration: 0 },
    ];
    await withNest({ throttlers }, async ({ get }) => {
      const [one, two] = [await get(), await get()];
      assert.deepEqual([one.status, two.status], [200, 200]);
      assert.equal(header(two, "X-RateLimit-Remaining-burst"), "0");
      assert.equal(header(two, "X-RateLimit-Remaining-sustained"), "3");
      assert.equal(header(two, "X-RateLimit-Limit-sustained"), "5");
      const rejected = await get();
      assert.equal(rejected.status, 429);
      assert.ok(numberHeader(rejected, "Retry-After-burst") >= 1);
      assert.equal((await ctx.admin.keys("throttler:*")).length, 2);
    });
  });

  test("@Throttle overrides a route's limit and @SkipThrottle frees a route", async () => {
    await withNest({ throttlers: [{ ttl: 60_000, limit: 2 }], overrides: { default: { limit: 1, ttl: 60_000 } } }, async ({ get }) => {
      assert.deepEqual([(await get("/strict")).status, (await get("/strict")).status], [200, 429]);
      for (let i = 0; i < 4; i++) {
        const free = await get("/free");
        assert.equal(free.status, 200);
        assert.equal(header(free, "X-RateLimit-Limit"), null);
      }
      assert.equal(header(await get("/"), "X-RateLimit-Limit"), "2");
    });
  });

  test("ThrottlerGuard on one route (UseGuards) limits that route", async () => {
    await withNest({ throttlers: [{ ttl: 60_000, limit: 1 }], global: false }, async ({ get }) => {
      assert.deepEqual([(await get("/guarded")).status, (await get("/guarded")).status], [200, 429]);
      assert.equal((await get("/guarded", "another client")).status, 200);
    });
  });

  test("fixed and gcra by option", async () => {
    for (const algorithm of ["fixed", "gcra"]) {
      await ctx.admin.sendCommand(["FLUSHALL"]);
      await withNest({ throttlers: [{ ttl: 60_000, limit: 2, blockDuration: 0 }], storageOptions: { algorithm } }, async ({ get }) => {
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await get()).status);
        assert.deepEqual(statuses, [200, 200, 429], algorithm);
        const type = await ctx.admin.type(await keyOf("default"));
        assert.equal(type, "string", algorithm);
      });
    }
  });
});

describe("WinlimitThrottlerStorage", () => {
  test("a rejected hit's record is one above the window, its times in whole seconds rounded up", () => {
    const rejected = new Decision({ allowed: false, limit: 5, remaining: 0, retryAfterMs: 1_001, resetAfterMs: 59_000 });
    assert.deepEqual(recordOf(rejected, 60_000), { totalHits: 6, timeToExpire: 59, isBlocked: true, timeToBlockExpire: 2 });
    const accepted = new Decision({ allowed: true, limit: 5, remaining: 3, retryAfterMs: 0, resetAfterMs: 59_999 });
    assert.deepEqual(recordOf(accepted, 60_000), { totalHits: 2, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    const never = new Decision({ allowed: false, limit: 0, remaining: 0, retryAfterMs: -1, resetAfterMs: 0 });
    assert.equal(recordOf(never, 60_000).timeToBlockExpire, 60);
  });

  test("a bad limiter or algorithm is refused when it is built", () => {
    assert.throws(() => new WinlimitThrottlerStorage({}), TypeError);
    assert.throws(() => new WinlimitThrottlerStorage(ctx.limiter, { algorithm: "leaky" }), /algorithm must be one of slide, fixed, gcra/);
  });
});
