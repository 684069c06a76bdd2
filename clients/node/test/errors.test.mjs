// Errors: a server without the module, the server's own errors, and arguments refused before
// anything is sent. Every one is a rejected promise (the methods are async).

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Limiter, ModuleNotLoaded, RedisCallError } from "winlimit";
import { LIBRARIES } from "./support/clients.mjs";
import { SENT_LINES, asSent } from "./support/backend.mjs";
import { redisForFile, testLimiter } from "./support/fixture.mjs";
import { RedisServer } from "./support/servers.mjs";

const W = 60_000;
const ctx = redisForFile({ resetStats: true });
let bare;
before(async () => {
  bare = await RedisServer.start({ module: false });
});
after(async () => bare?.stop());

/** How many WINLIMIT calls (as the suite's backend sends them) the server has seen since
 * the last CONFIG RESETSTAT. */
async function winlimitCalls() {
  const stats = await ctx.admin.sendCommand(["INFO", "commandstats"]);
  return [...stats.matchAll(SENT_LINES)].reduce((n, m) => n + Number(m[1]), 0);
}

const SERVER_ERRORS = {
  "window": [(l) => l.slide("k", 0, 3), ["WINLIMIT.SLIDE", "k", "0", "3"]],
  "same window twice": [(l) => l.slide("k", [[1000, 2], [1000, 3]]), ["WINLIMIT.SLIDE", "k", "1000", "2", "1000", "3"]],
  "bucket": [(l) => l.slide("k", W, 3, { bucket: W + 1 }), ["WINLIMIT.SLIDE", "k", String(W), "3", "BUCKET", String(W + 1)]],
  "cost": [(l) => l.slide("k", W, 3, { cost: 0 }), ["WINLIMIT.SLIDE", "k", String(W), "3", "COST", "0"]],
  "fixed limit": [(l) => l.fixed("k", W, -1), ["WINLIMIT.FIXED", "k", String(W), "-1"]],
  "gcra limit": [(l) => l.gcra("k", W, 0), ["WINLIMIT.GCRA", "k", String(W), "0"]],
  "gcra_ro burst": [(l) => l.gcra("k", W, 10, { burst: 0, peek: true }), ["WINLIMIT.GCRA_RO", "k", String(W), "10", "BURST", "0"]],
};

for (const [library, lib] of Object.entries(LIBRARIES)) {
  describe(`over ${library}`, () => {
    test("a server without the module rejects with ModuleNotLoaded naming the fix", async () => {
      const connection = await lib.plain(bare.port);
      try {
        const error = await testLimiter(connection.client, { backend: "module" }).gcra("k", W, 3).then(() => assert.fail("resolved"), (e) => e);
        assert.ok(error instanceof ModuleNotLoaded && error instanceof RedisCallError && error instanceof Error);
        assert.equal(error.name, "ModuleNotLoaded");
        assert.match(error.message, /unknown command/i);
        assert.ok(error.message.includes("--loadmodule") && error.message.includes("MODULE LOAD"), error.message);
        assert.ok(error.cause instanceof Error && error.message.startsWith(error.cause.message));
      } finally {
        await connection.close();
      }
    });

    for (const [name, [call, raw]] of Object.entries(SERVER_ERRORS)) {
      test(`the server's own error comes through with its text: ${name}`, async () => {
        const direct = await ctx.admin.sendCommand(await asSent(ctx.admin, raw)).then(() => assert.fail("accepted"), (e) => e);
        const connection = await lib.plain(ctx.server.port);
        try {
          const error = await call(testLimiter(connection.client)).then(() => assert.fail("resolved"), (e) => e);
          assert.equal(error.constructor, RedisCallError);
          assert.equal(error.message, direct.message);
          assert.ok(error.cause instanceof Error);
        } finally {
          await connection.close();
        }
      });
    }

    test("a key of another type rejects with WRONGTYPE", async () => {
      await ctx.admin.sendCommand(["SET", "k", "text"]);
      const connection = await lib.plain(ctx.server.port);
      try {
        await assert.rejects(testLimiter(connection.client).slide("k", W, 3), (e) => e instanceof RedisCallError && /^WRONGTYPE/.test(e.message));
      } finally {
        await connection.close();
      }
    });
  });
}

describe("arguments the client can judge", () => {
  const TYPE_ERRORS = {
    "pairs and a limit": (l) => l.slide("k", [[1000, 2]], 5),
    "no limit": (l) => l.slide("k", 1000),
    "a string window": (l) => l.slide("k", "1000", 5),
    "a fractional limit": (l) => l.fixed("k", W, 2.5),
    "a boolean burst": (l) => l.gcra("k", W, 10, { burst: true }),
    "a bigint cost": (l) => l.gcra("k", W, 10, { cost: 2n }),
    "NaN": (l) => l.fixed("k", NaN, 3),
    "a pair of three": (l) => l.slide("k", [[1000, 2, 3]]),
    "a number key": (l) => l.fixed(42, W, 3),
    "a string peek": (l) => l.fixed("k", W, 3, { peek: "yes" }),
    "options that are not an object": (l) => l.gcra("k", W, 3, 5),
  };
  for (const [name, call] of Object.entries(TYPE_ERRORS)) {
    test(`bad argument types reject with TypeError before anything is sent: ${name}`, async () => {
      const pending = call(ctx.limiter);
      assert.ok(pending instanceof Promise, "a rejected promise, not a throw");
      await assert.rejects(pending, TypeError);
      assert.equal(await winlimitCalls(), 0);
    });
  }

  const RANGE_ERRORS = {
    "no windows": (l) => l.slide("k", []),
    "a name with a line break": (l) => l.slide("k", W, 3, { name: "line\nbreak" }),
    "a window past 2^53": (l) => l.slide("k", 2 ** 53, 3),
    "a limit past 2^53": (l) => l.gcra("k", W, 2 ** 60),
  };
  for (const [name, call] of Object.entries(RANGE_ERRORS)) {
    test(`bad values reject with RangeError before anything is sent: ${name}`, async () => {
      await assert.rejects(call(ctx.limiter), RangeError);
      assert.equal(await winlimitCalls(), 0);
    });
  }

  test("a call that is sent shows in the count the checks above read", async () => {
    await ctx.limiter.fixed("k", W, 3);
    assert.equal(await winlimitCalls(), 1);
  });

  test("something that is not a Redis client is refused", () => {
    assert.throws(() => new Limiter({}), TypeError);
    assert.throws(() => new Limiter(null), TypeError);
  });
});
