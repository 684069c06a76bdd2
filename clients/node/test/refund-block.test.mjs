// { refund } and { blockMs } on every limiter method against a real redis-server with the
// module: the option reaches the server as REFUND / BLOCK and the decision is the server's.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { LIBRARIES } from "./support/clients.mjs";
import { redisForFile, testLimiter } from "./support/fixture.mjs";
import * as keyspace from "./support/keyspace.mjs";

const W = 60_000;
const BLOCK = 900_000;
const ctx = redisForFile();
const redis = (...args) => ctx.admin.sendCommand(args.map(String));

const serverMs = () => keyspace.serverMs(ctx.admin);

// Each method with a limit of 3 per W on the key "k".
const METHODS = {
  slide: (lim, o) => lim.slide("k", W, 3, o),
  "slide-bucket": (lim, o) => lim.slide("k", W, 3, { bucket: 1000, ...o }),
  fixed: (lim, o) => lim.fixed("k", W, 3, o),
  gcra: (lim, o) => lim.gcra("k", W, 3, o),
};

const { plain } = LIBRARIES["node-redis 6"];

for (const [method, call] of Object.entries(METHODS)) {
  describe(method, () => {
    let limiter;
    let connection;
    before(async () => {
      connection = await plain(ctx.server.port);
      limiter = testLimiter(connection.client);
    });
    after(async () => connection?.close());

    test("refund gives the newest units back", async () => {
      for (let i = 0; i < 3; i++) await call(limiter);
      const d = await call(limiter, { refund: 2 });
      assert.deepEqual([d.allowed, d.remaining], [true, 2]);
      assert.equal((await call(limiter, { peek: true })).remaining, 2);
    });

    test("refund never gives back more than the key holds", async () => {
      await call(limiter);
      assert.equal((await call(limiter, { refund: 5 })).remaining, 3);
      assert.ok((await call(limiter, { cost: 3 })).allowed);
      assert.ok(!(await call(limiter)).allowed);
    });

    test("refund on a missing key creates nothing", async () => {
      assert.equal((await call(limiter, { refund: 1 })).remaining, 3);
      assert.equal(await redis("EXISTS", "k"), 0);
    });

    test("blockMs blocks the key for that long once rejected", async () => {
      for (let i = 0; i < 3; i++) assert.ok((await call(limiter, { blockMs: BLOCK })).allowed);
      const t0 = await serverMs();
      const d = await call(limiter, { blockMs: BLOCK });
      const t1 = await serverMs();
      assert.deepEqual([d.allowed, d.remaining], [false, 0]);
      assert.ok(BLOCK - (t1 - t0) <= d.retryAfterMs && d.retryAfterMs <= BLOCK, String(d.retryAfterMs));
    });

    test("a blocked key refuses calls without blockMs, peeks report it, a refund does not lift it", async () => {
      for (let i = 0; i < 4; i++) await call(limiter, { blockMs: BLOCK });
      for (const options of [{}, { peek: true }, { refund: 3 }]) {
        const d = await call(limiter, options);
        assert.deepEqual([d.allowed, d.remaining], [false, 0], JSON.stringify(options));
        assert.ok(d.retryAfterMs > W && d.retryAfterMs <= BLOCK);
      }
    });

    test("a rejection during a block does not extend it; reset lifts it", async () => {
      let first;
      for (let i = 0; i < 4; i++) first = await call(limiter, { blockMs: BLOCK });
      const again = await call(limiter, { blockMs: BLOCK });
      assert.ok(again.retryAfterMs <= first.retryAfterMs);
      assert.ok(await limiter.reset("k"));
      assert.ok((await call(limiter)).allowed);
    });

    test("the server refuses refund with cost or blockMs, and either on a peek, in its own words", async () => {
      await assert.rejects(call(limiter, { refund: 1, cost: 2 }), /REFUND cannot be combined with COST/);
      await assert.rejects(call(limiter, { refund: 1, blockMs: 5 }), /REFUND cannot be combined with BLOCK/);
      await assert.rejects(call(limiter, { refund: 1, peek: true }), /REFUND is an option of the recording commands/);
      await assert.rejects(call(limiter, { blockMs: 0 }), /BLOCK must be an integer between 1 and 1000000000000/);
    });

    test("a refund or blockMs that is not an integer is refused before sending", async () => {
      for (const options of [{ refund: "1" }, { refund: 1.5 }, { blockMs: true }]) {
        await assert.rejects(call(limiter, options), TypeError);
      }
      assert.equal(await redis("EXISTS", "k"), 0);
    });

    test("waitMs with refund is refused", async () => {
      await assert.rejects(call(limiter, { refund: 1, waitMs: 1000 }), /refund takes nothing/);
    });
  });
}

test("a refund forgets the key's cached rejections", async () => {
  const connection = await plain(ctx.server.port);
  try {
    const limiter = testLimiter(connection.client, { cacheRejections: true });
    await limiter.fixed("c", W, 1);
    assert.ok(!(await limiter.fixed("c", W, 1)).allowed);
    await limiter.fixed("c", W, 1, { refund: 1 });
    const d = await limiter.fixed("c", W, 1);
    assert.deepEqual([d.allowed, d.cached], [true, false]);
  } finally {
    await connection.close();
  }
});

test("the limiter's blockMs is every recording call's default", async () => {
  const connection = await plain(ctx.server.port);
  try {
    const limiter = testLimiter(connection.client, { blockMs: BLOCK });
    let d;
    for (let i = 0; i < 4; i++) d = await limiter.fixed("b", W, 3);
    assert.ok(d.retryAfterMs > W);
    assert.ok((await limiter.fixed("b", W, 3, { refund: 1 })).retryAfterMs > W); // a refund sends no BLOCK
    assert.ok((await limiter.slide("s", W, 1, { peek: true })).allowed); // nor a peek
    assert.throws(() => testLimiter(connection.client, { blockMs: "5" }), TypeError);
  } finally {
    await connection.close();
  }
});
