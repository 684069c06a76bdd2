// MemoryLimiter: Limiter's methods and decisions in this process, and its bounded memory.
// Its decisions are checked call by call against the module's in spec-decisions.test.mjs;
// here, what the methods add and how keys are dropped.

import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryLimiter, RedisCallError } from "winlimit";

const EPOCH = 1_700_000_000_000;

function clocked(options = {}) {
  const clock = { now: EPOCH };
  return [new MemoryLimiter({ clock: () => clock.now, ...options }), clock];
}

test("methods give the Redis limiter's decisions, marked memory", async () => {
  const [limiter] = clocked();
  const d = await limiter.slide("k", [[1_000, 2], [60_000, 5]], { cost: 2 });
  assert.deepEqual([d.allowed, d.limit, d.remaining, d.backend], [true, 2, 0, "memory"]);
  assert.deepEqual(d.policies.map((p) => p.name), ["winlimit-1s", "winlimit-60s"]);
  assert.equal(d.headers()["RateLimit"], '"winlimit-1s";r=0;t=1');
});

test("peeks record nothing", async () => {
  const [limiter] = clocked();
  for (let i = 0; i < 3; i++) assert.ok((await limiter.gcra("k", 1_000, 10, { burst: 1, peek: true })).allowed);
  assert.ok((await limiter.gcra("k", 1_000, 10, { burst: 1 })).allowed);
  assert.ok(!(await limiter.gcra("k", 1_000, 10, { burst: 1 })).allowed);
});

test("fixed align ends the window at the next multiple", async () => {
  const [limiter, clock] = clocked();
  clock.now = 3_600_000 * 100 + 1_234;
  assert.equal((await limiter.fixed("k", 3_600_000, 3, { align: true })).resetAfterMs, 3_600_000 - 1_234);
});

test("bad arguments reject with the module's error", async () => {
  const [limiter] = clocked();
  await assert.rejects(limiter.gcra("k", 1_000, 0), (e) => e instanceof RedisCallError && e.message === "ERR limit must be an integer between 1 and 1000000000000");
});

test("a key of another kind is refused", async () => {
  const [limiter] = clocked();
  await limiter.fixed("k", 1_000, 3);
  await assert.rejects(limiter.slide("k", 1_000, 3), /^RedisCallError: WRONGTYPE/);
});

test("a rejected call on a new key keeps nothing", async () => {
  const [limiter] = clocked();
  assert.ok(!(await limiter.slide("k", 1_000, 0)).allowed);
  assert.equal(limiter.size, 0);
});

test("idle keys are dropped once their windows have passed", async () => {
  const [limiter, clock] = clocked();
  for (let i = 0; i < 100; i++) await limiter.slide(`idle-${i}`, 1_000, 5);
  await limiter.gcra("busy", 60_000, 1_000_000);
  clock.now += 1_000; // every idle key's window has passed; busy's bucket is not full yet
  for (let i = 0; i < 101; i++) await limiter.gcra("busy", 60_000, 1_000_000);
  assert.equal(limiter.size, 1);
});

test("a key whose windows passed starts afresh", async () => {
  const [limiter, clock] = clocked();
  assert.ok((await limiter.slide("k", 1_000, 1)).allowed);
  clock.now += 999;
  assert.ok(!(await limiter.slide("k", 1_000, 1)).allowed);
  clock.now += 1;
  assert.equal((await limiter.slide("k", 1_000, 1)).remaining, 0);
});

test("at most maxKeys keys are kept, the least recently used out first", async () => {
  const [limiter] = clocked({ maxKeys: 3 });
  for (const key of ["a", "b", "c"]) assert.ok((await limiter.fixed(key, 60_000, 1)).allowed);
  assert.ok(!(await limiter.fixed("a", 60_000, 1)).allowed); // "a" is now the most recently used
  assert.ok((await limiter.fixed("d", 60_000, 1)).allowed); // "b" goes
  assert.equal(limiter.size, 3);
  assert.ok((await limiter.fixed("b", 60_000, 1)).allowed); // forgotten: a new window ("c" goes)
  assert.ok(!(await limiter.fixed("a", 60_000, 1)).allowed);
  assert.ok(!(await limiter.fixed("d", 60_000, 1)).allowed);
});

test("maxKeys defaults to 100,000 and the clock to Date.now", () => {
  const limiter = new MemoryLimiter();
  assert.equal(limiter.maxKeys, 100_000);
  assert.equal(limiter.clock, Date.now);
});

test("reset forgets the key and its cached rejections", async () => {
  const [limiter] = clocked({ cacheRejections: true });
  await limiter.slide("k", 60_000, 1);
  assert.equal((await limiter.slide("k", 60_000, 1)).cached, false);
  assert.equal((await limiter.slide("k", 60_000, 1)).cached, true);
  assert.equal(await limiter.reset("k"), true);
  assert.ok((await limiter.slide("k", 60_000, 1)).allowed);
  assert.equal(await limiter.reset("never"), false);
});

test("metrics count its decisions as fallback", async () => {
  const { Registry } = await import("prom-client");
  const { Metrics } = await import("winlimit/metrics");
  const registry = new Registry();
  const [limiter] = clocked({ metrics: new Metrics({ registry }), cacheRejections: true });
  for (let i = 0; i < 4; i++) await limiter.fixed("k", 60_000, 2, { name: "api" });
  const { values } = await registry.getSingleMetric("winlimit_decisions_total").get();
  assert.deepEqual(values.map((v) => [v.labels.policy, v.labels.outcome, v.value]), [["api", "fallback", 4]]);
});

test("refund gives units back through the methods", async () => {
  const [limiter] = clocked();
  await limiter.fixed("k", 1_000, 2, { cost: 2 });
  const d = await limiter.fixed("k", 1_000, 2, { refund: 1 });
  assert.deepEqual([d.allowed, d.remaining], [true, 1], "the refund replies as the peek after it");
  assert.ok((await limiter.fixed("k", 1_000, 2)).allowed);
});

test("the limiter's blockMs blocks recording calls that give none", async () => {
  const [limiter, clock] = clocked({ blockMs: 5_000 });
  await limiter.slide("k", 1_000, 1);
  const blocked = await limiter.slide("k", 1_000, 1);
  assert.deepEqual([blocked.allowed, blocked.retryAfterMs], [false, 5_000]);
  clock.now += 2_000;
  assert.equal((await limiter.slide("k", 1_000, 1, { peek: true })).retryAfterMs, 3_000, "the window alone has room");
  assert.equal((await limiter.slide("k", 1_000, 1, { refund: 1 })).retryAfterMs, 3_000, "a refund takes no blockMs");
  clock.now += 3_000;
  assert.ok((await limiter.slide("k", 1_000, 1)).allowed);
});

test("blockMs is checked as Limiter's", async () => {
  assert.throws(() => new MemoryLimiter({ blockMs: "5s" }), TypeError);
  const [limiter] = clocked();
  await assert.rejects(limiter.gcra("k", 1_000, 1, { blockMs: 0 }), (e) => e instanceof RedisCallError && /BLOCK must be an integer between 1 and 1000000000000/.test(e.message));
});
