// waitMs on a real server, with keys kept full by the test: a call that is rejected sleeps
// retryAfterMs and tries again, until accepted or until the next sleep would end after its
// deadline. Bounds come from the replies' own retryAfterMs, not from fixed sleeps.

import assert from "node:assert/strict";
import { test } from "node:test";
import { redisForFile } from "./support/fixture.mjs";

// Slack for a busy machine: timers and round trips may run late, never early.
const LATE_MS = 1500;
const ctx = redisForFile();

async function timed(work) {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
}

test("a call waits about retryAfterMs and is accepted", async () => {
  // One unit per 400 ms, the bucket emptied by the test.
  assert.equal((await ctx.limiter.gcra("k", 400, 1)).allowed, true);
  const peekSentAt = performance.now();
  const peek = await ctx.limiter.gcra("k", 400, 1, { peek: true });
  assert.ok(!peek.allowed && peek.retryAfterMs > 0);
  const callStart = performance.now();
  const [d, elapsed] = await timed(() => ctx.limiter.gcra("k", 400, 1, { waitMs: 5000 }));
  assert.equal(d.allowed, true);
  // It slept at least what the peek said was left, less the most server time that can have
  // passed between the peek and the call's first reply: from sending the peek to the call's
  // start, plus the call's time not spent asleep (a late reply of a busy machine included),
  // and a ms of rounding each side. At most the 400 ms a unit takes, give or take a late timer.
  const mostBetween = callStart - peekSentAt + (elapsed - d.waitedMs);
  assert.ok(d.waitedMs >= peek.retryAfterMs - mostBetween - 2 && d.waitedMs <= 400 + LATE_MS, `waited ${d.waitedMs}`);
  assert.ok(elapsed >= d.waitedMs - 1 && elapsed <= d.waitedMs + LATE_MS, `took ${elapsed} for ${d.waitedMs}`);
  assert.equal(await ctx.admin.sendCommand(["EXISTS", "k"]), 1);
});

test("a sliding window waits for its oldest unit to leave", async () => {
  assert.equal((await ctx.limiter.slide("k", 300, 2, { cost: 2 })).allowed, true);
  const [d, elapsed] = await timed(() => ctx.limiter.slide("k", 300, 2, { waitMs: 3000 }));
  assert.deepEqual([d.allowed, d.remaining], [true, 1]);
  assert.ok(d.waitedMs > 0 && d.waitedMs <= 300 + LATE_MS && elapsed >= d.waitedMs - 1, `waited ${d.waitedMs}`);
});

test("a call whose first retry ends after the deadline returns at once, not accepted", async () => {
  await ctx.limiter.gcra("k", 60_000, 1);
  const [d, elapsed] = await timed(() => ctx.limiter.gcra("k", 60_000, 1, { waitMs: 500 }));
  assert.deepEqual([d.allowed, d.waitedMs], [false, 0]);
  assert.ok(d.retryAfterMs > 500);
  assert.ok(elapsed < 500, `took ${elapsed} ms`);
});

test("of two waiters for one unit, one gets it and the other gives up before its deadline", async () => {
  // One unit per 600 ms: both sleep about 600 ms, one takes the unit, the other would need
  // another 600 ms, past its deadline of 900.
  await ctx.limiter.gcra("k", 600, 1);
  const results = await Promise.all([1, 2].map(() => timed(() => ctx.limiter.gcra("k", 600, 1, { waitMs: 900 }))));
  const decisions = results.map(([d]) => d);
  assert.deepEqual(decisions.map((d) => d.allowed).sort(), [false, true]);
  const [loser, loserElapsed] = results.find(([d]) => !d.allowed);
  assert.ok(loser.waitedMs > 0 && loser.retryAfterMs > 0);
  // It did not sleep past its deadline (its last sleep was the one it did not take).
  assert.ok(loser.waitedMs <= 900, `waited ${loser.waitedMs}`);
  assert.ok(loserElapsed < 900 + LATE_MS, `took ${loserElapsed}`);
});

test("a request that can never fit (retryAfterMs -1) returns at once", async () => {
  const [d, elapsed] = await timed(() => ctx.limiter.fixed("k", 60_000, 3, { cost: 4, waitMs: 10_000 }));
  assert.deepEqual([d.allowed, d.retryAfterMs, d.waitedMs], [false, -1, 0]);
  assert.ok(elapsed < 1000, `took ${elapsed} ms`);
});

test("an accepted call did not wait", async () => {
  const d = await ctx.limiter.fixed("k", 60_000, 3, { waitMs: 1000 });
  assert.deepEqual([d.allowed, d.waitedMs], [true, 0]);
  assert.equal((await ctx.limiter.fixed("k", 60_000, 3)).waitedMs, 0);
});

test("waitMs with peek, or a waitMs that is not a positive number, is refused before anything is sent", async () => {
  await assert.rejects(ctx.limiter.slide("k", 1000, 1, { peek: true, waitMs: 100 }), TypeError);
  await assert.rejects(ctx.limiter.slide("k", 1000, 1, { waitMs: "100" }), TypeError);
  for (const waitMs of [0, -5, NaN, Infinity]) await assert.rejects(ctx.limiter.gcra("k", 1000, 1, { waitMs }), RangeError);
  assert.equal(await ctx.admin.sendCommand(["DBSIZE"]), 0);
});
