// Limiter against a real redis-server with the module: every method and option, over each
// client library the limiter accepts (node-redis 4 and 6, ioredis 5 and 6). What each call
// sent is read back from the server's own keys.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { LIBRARIES } from "./support/clients.mjs";
import { redisForFile, testLimiter } from "./support/fixture.mjs";
import * as keyspace from "./support/keyspace.mjs";
import { BACKEND } from "./support/servers.mjs";

const W = 60_000;
const ctx = redisForFile();

const redis = (...args) => ctx.admin.sendCommand(args.map(String));
const pexpiretime = (key) => keyspace.pexpiretime(ctx.admin, key);
const serverMs = () => keyspace.serverMs(ctx.admin);

/** The (bucket_ms, total) words of a bucketed log (README, "BUCKET ms"). */
async function bucketLog(key) {
  const [bucketMs, total] = await redis("BITFIELD", key, "GET", "i64", "#1", "GET", "i64", "#2");
  return { bucketMs, total };
}

const fields = (d) => [d.allowed, d.limit, d.remaining, d.retryAfterMs, d.resetAfterMs];

for (const [library, lib] of Object.entries(LIBRARIES)) {
  describe(`over ${library}`, () => {
    let limiter;
    let connection;
    before(async () => {
      connection = await lib.plain(ctx.server.port);
      limiter = testLimiter(connection.client);
    });
    after(async () => connection?.close());

    test("every decision names the backend that answered: the suite's, found by auto", async () => {
      const decisions = [await limiter.slide("s", W, 3), await limiter.fixed("f", W, 3, { peek: true }), await limiter.gcra("g", W, 3)];
      assert.deepEqual(decisions.map((d) => d.backend), [BACKEND, BACKEND, BACKEND]);
    });

    test("slide returns the five fields by name", async () => {
      assert.deepEqual(fields(await limiter.slide("k", W, 3)), [true, 3, 2, 0, W]);
      assert.equal(await redis("ZCARD", "k"), 1);
    });

    test("a slide rejection waits until the oldest unit leaves", async () => {
      for (let i = 0; i < 3; i++) await limiter.slide("k", W, 3);
      const before = await serverMs();
      const d = await limiter.slide("k", W, 3);
      const after = await serverMs();
      const oldest = Number((await redis("ZRANGE", "k", 0, 0, "WITHSCORES")).flat()[1]);
      assert.deepEqual([d.allowed, d.remaining], [false, 0]);
      assert.ok(oldest + W - after <= d.retryAfterMs && d.retryAfterMs <= oldest + W - before);
      assert.equal(await redis("ZCARD", "k"), 3);
    });

    test("slide cost takes that many units", async () => {
      const d = await limiter.slide("k", W, 10, { cost: 4 });
      assert.deepEqual([d.allowed, d.remaining], [true, 6]);
      assert.equal(await redis("ZCARD", "k"), 4);
    });

    test("several pairs are one call reporting the binding pair", async () => {
      const d = await limiter.slide("k", [[1000, 2], [W, 100]]);
      assert.deepEqual([d.allowed, d.limit, d.remaining, d.windowMs], [true, 2, 1, 1000]);
      assert.deepEqual(d.policies.map((p) => [p.name, p.quota, p.windowMs]), [["winlimit-1s", 2, 1000], ["winlimit-60s", 100, W]]);
      assert.equal(await redis("ZCARD", "k"), 1);
    });

    test("several pairs reject when any pair is full", async () => {
      await limiter.slide("k", [[1000, 5], [W, 2]], { cost: 2 });
      const d = await limiter.slide("k", [[1000, 5], [W, 2]]);
      assert.deepEqual([d.allowed, d.limit, d.remaining, d.windowMs, d.policy.name], [false, 2, 0, W, "winlimit-60s"]);
      assert.equal(await redis("ZCARD", "k"), 2);
    });

    test("bucket counts per bucket of that length", async () => {
      const d = await limiter.slide("k", W, 10, { cost: 3, bucket: 1000 });
      assert.deepEqual([d.allowed, d.remaining], [true, 7]);
      assert.deepEqual(await bucketLog("k"), { bucketMs: 1000, total: 3 });
    });

    test("slide peek asks SLIDE_RO, which records nothing", async () => {
      await limiter.slide("k", W, 5, { cost: 2 });
      const d = await limiter.slide("k", W, 5, { peek: true });
      assert.deepEqual([d.allowed, d.remaining], [true, 3]);
      assert.equal(await redis("ZCARD", "k"), 2);
      assert.equal((await limiter.slide("fresh", W, 5, { peek: true })).remaining, 5);
      assert.equal(await redis("EXISTS", "fresh"), 0);
    });

    test("slide peek takes every option", async () => {
      await limiter.slide("k", [[1000, 4], [W, 10]], { cost: 3, bucket: 100 });
      const d = await limiter.slide("k", [[1000, 4], [W, 10]], { cost: 2, bucket: 100, peek: true });
      assert.deepEqual([d.allowed, d.limit, d.remaining, d.windowMs], [false, 4, 1, 1000]);
      assert.equal((await bucketLog("k")).total, 3);
    });

    test("fixed counts in a string that expires with the window", async () => {
      const before = await serverMs();
      assert.deepEqual(fields(await limiter.fixed("k", W, 3)), [true, 3, 2, 0, W]);
      assert.equal(await redis("GET", "k"), "1");
      assert.ok((await pexpiretime("k")) - before >= W);
    });

    test("fixed cost, and a rejection waits for the window to end", async () => {
      assert.equal((await limiter.fixed("k", W, 5, { cost: 2 })).remaining, 3);
      assert.equal(await redis("GET", "k"), "2");
      const d = await limiter.fixed("k", W, 5, { cost: 4 });
      assert.deepEqual([d.allowed, d.remaining], [false, 3]);
      assert.ok(d.retryAfterMs === d.resetAfterMs && d.retryAfterMs > 0 && d.retryAfterMs <= W);
    });

    test("fixed align ends the window on a multiple of windowMs", async () => {
      const d = await limiter.fixed("k", W, 3, { align: true });
      assert.equal((await pexpiretime("k")) % W, 0);
      assert.ok(d.resetAfterMs > 0 && d.resetAfterMs <= W);
    });

    test("fixed peek asks FIXED_RO, which records nothing", async () => {
      await limiter.fixed("k", W, 5, { cost: 2, align: true });
      const d = await limiter.fixed("k", W, 5, { cost: 4, align: true, peek: true });
      assert.deepEqual([d.allowed, d.remaining], [false, 3]);
      assert.equal(await redis("GET", "k"), "2");
    });

    test("gcra takes from a bucket of limit units", async () => {
      // One unit out of a bucket refilling 3 per minute: full again in 20 s.
      assert.deepEqual(fields(await limiter.gcra("k", W, 3)), [true, 3, 2, 0, W / 3]);
      assert.match(await redis("GET", "k"), /^gcra:/);
    });

    test("gcra burst is the bucket's capacity", async () => {
      const d = await limiter.gcra("k", W, 100, { burst: 2 });
      assert.deepEqual([d.allowed, d.limit, d.remaining], [true, 2, 1]);
      assert.deepEqual(d.policies, [{ name: "winlimit", quota: 2, windowMs: 1200 }]);
      assert.equal((await limiter.gcra("k", W, 100, { burst: 2 })).allowed, true);
      assert.equal((await limiter.gcra("k", W, 100, { burst: 2 })).allowed, false);
    });

    test("gcra cost takes that many units", async () => {
      const d = await limiter.gcra("k", W, 10, { burst: 5, cost: 3 });
      assert.deepEqual([d.allowed, d.remaining, d.resetAfterMs], [true, 2, (3 * W) / 10]);
    });

    test("gcra peek asks GCRA_RO, which records nothing", async () => {
      await limiter.gcra("k", W, 10, { burst: 5, cost: 3 });
      const stored = await redis("GET", "k");
      const d = await limiter.gcra("k", W, 10, { burst: 5, cost: 3, peek: true });
      assert.deepEqual([d.allowed, d.limit, d.remaining], [false, 5, 2]);
      assert.equal(await redis("GET", "k"), stored);
    });

    test("a Buffer key is the same key", async () => {
      await limiter.fixed(Buffer.from("k"), W, 3);
      assert.equal((await limiter.fixed("k", W, 3)).remaining, 1);
    });

    test("a name given to a call names its policy", async () => {
      const named = testLimiter(connection.client, { name: "api" });
      assert.equal((await named.fixed("k", W, 3)).policy.name, "api");
      assert.equal((await named.fixed("k", W, 3, { name: "login" })).policy.name, "login");
      assert.deepEqual((await named.slide("s", [[1000, 3], [1500, 4]])).policies.map((p) => p.name), ["api-1s", "api-1500ms"]);
    });

    test("windows and limits up to 10^12 go out exactly", async () => {
      const d = await limiter.fixed("k", 10 ** 12, 10 ** 12, { cost: 10 ** 12 - 1 });
      assert.deepEqual([d.allowed, d.limit, d.remaining], [true, 10 ** 12, 1]);
      assert.equal(await redis("GET", "k"), "999999999999");
    });
  });
}
