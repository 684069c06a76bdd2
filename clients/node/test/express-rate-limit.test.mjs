// winlimit/express-rate-limit: a real Express app limited by express-rate-limit with
// WinlimitStore over a real redis-server, served on loopback and called with fetch.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { WinlimitStore } from "winlimit/express-rate-limit";
import { LIBRARIES } from "./support/clients.mjs";
import { WatchedStore, erlApp, withErl } from "./support/erl-app.mjs";
import { redisForFile, testLimiter } from "./support/fixture.mjs";

const ctx = redisForFile();
const W = 60_000;

const statuses = async (get, n, path = "/") => {
  const out = [];
  for (let i = 0; i < n; i++) out.push((await get(path)).status);
  return out;
};

/** The server's wait for client c1, read without counting. */
const waitOf = async (limit) => (await ctx.limiter.slide("erl:c1", W, limit, { peek: true })).retryAfterMs;

/** express-rate-limit's logger, keeping what it is told. */
function collectingLogger() {
  const logged = [];
  return { logged, error: (...args) => logged.push(args), warn: (...args) => logged.push(args) };
}

describe("WinlimitStore in an express-rate-limit app", () => {
  const HEADERS = {
    "draft-6": (r) => ({ remaining: Number(r.headers.get("RateLimit-Remaining")), reset: Number(r.headers.get("RateLimit-Reset")), policy: r.headers.get("RateLimit-Policy") }),
    "draft-7": (r) => {
      const m = r.headers.get("RateLimit").match(/^limit=(\d+), remaining=(\d+), reset=(\d+)$/);
      return { remaining: Number(m[2]), reset: Number(m[3]), policy: r.headers.get("RateLimit-Policy") };
    },
    "draft-8": (r) => {
      const m = r.headers.get("RateLimit").match(/^"2-in-1min"; r=(\d+); t=(\d+)$/);
      return { remaining: Number(m[1]), reset: Number(m[2]), policy: r.headers.get("RateLimit-Policy").replace(/; pk=.*/, "") };
    },
    legacy: (r) => ({
      remaining: Number(r.headers.get("X-RateLimit-Remaining")),
      reset: Number(r.headers.get("X-RateLimit-Reset")) - Math.ceil(Date.now() / 1000),
      policy: r.headers.get("X-RateLimit-Limit"),
    }),
  };
  const POLICY = { "draft-6": "2;w=60", "draft-7": "2;w=60", "draft-8": '"2-in-1min"; q=2; w=60', legacy: "2" };

  for (const [draft, read] of Object.entries(HEADERS)) {
    test(`standardHeaders ${draft}: the fields and Retry-After tell the server's decision`, async () => {
      const options = draft === "legacy" ? { legacyHeaders: true, standardHeaders: false } : { legacyHeaders: false, standardHeaders: draft };
      await withErl({ windowMs: W, limit: 2, ...options, store: new WinlimitStore({ limiter: ctx.limiter }) }, async ({ get }) => {
        const responses = [await get(), await get(), await get()];
        assert.deepEqual(responses.map((r) => r.status), [200, 200, 429]);
        const fields = responses.map(read);
        assert.deepEqual(fields.map((f) => f.remaining), [1, 0, 0]);
        for (const f of fields) assert.equal(f.policy, POLICY[draft]);
        // Accepted: when nothing counts any more, a window from the first request.
        for (const f of fields.slice(0, 2)) assert.ok(f.reset >= 58 && f.reset <= 60, `${draft} reset ${f.reset}`);
        const retryAfter = Number(responses[2].headers.get("Retry-After"));
        const waitMs = await waitOf(2);
        assert.ok(retryAfter >= Math.ceil(waitMs / 1000) && retryAfter <= 60, `Retry-After ${retryAfter}, the server's wait ${waitMs} ms`);
        if (draft !== "legacy") assert.equal(fields[2].reset, retryAfter);
      });
    });
  }

  test("skipFailedRequests gives a failed request's unit back", async () => {
    const store = new WatchedStore({ limiter: ctx.limiter });
    await withErl({ windowMs: W, limit: 2, skipFailedRequests: true, store }, async ({ get }) => {
      assert.deepEqual(await statuses(get, 3, "/fail"), [500, 500, 500]);
      await store.decremented(3);
      assert.deepEqual(await statuses(get, 3), [200, 200, 429]);
    });
  });

  test("under skipFailedRequests a 429 gives back nothing: the limit holds, never limit plus the 429s", async () => {
    const store = new WatchedStore({ limiter: ctx.limiter });
    await withErl({ windowMs: W, limit: 2, skipFailedRequests: true, store }, async ({ get }) => {
      const seen = [];
      for (let i = 0; i < 6; i++) {
        seen.push((await get()).status);
        await store.decremented(Math.max(0, seen.filter((s) => s !== 200).length));
      }
      assert.deepEqual(seen, [200, 200, 429, 429, 429, 429]);
      assert.equal((await ctx.limiter.slide("erl:c1", W, 2, { peek: true })).remaining, 0);
    });
  });

  test("skipSuccessfulRequests counts only failures", async () => {
    const store = new WatchedStore({ limiter: ctx.limiter });
    await withErl({ windowMs: W, limit: 2, skipSuccessfulRequests: true, store }, async ({ get }) => {
      assert.deepEqual(await statuses(get, 3), [200, 200, 200]);
      await store.decremented(3);
      assert.deepEqual(await statuses(get, 3, "/fail"), [500, 500, 429]);
    });
  });

  test("resetKey lets a client in again at once", async () => {
    await withErl({ windowMs: W, limit: 1, store: new WinlimitStore({ limiter: ctx.limiter }) }, async ({ get, limiter }) => {
      assert.deepEqual(await statuses(get, 2), [200, 429]);
      await limiter.resetKey("c1");
      assert.deepEqual(await statuses(get, 2), [200, 429]);
    });
  });

  test("two app instances on one Redis together hold the limit exactly", async () => {
    const second = await LIBRARIES["ioredis 5"].plain(ctx.server.port);
    const apps = [
      await erlApp({ windowMs: W, limit: 5, store: new WinlimitStore({ limiter: ctx.limiter }) }),
      await erlApp({ windowMs: W, limit: 5, store: new WinlimitStore({ limiter: testLimiter(second.client) }) }),
    ];
    try {
      const all = await Promise.all(Array.from({ length: 16 }, (_, i) => apps[i % 2].get()));
      assert.equal(all.filter((r) => r.status === 200).length, 5);
      assert.equal(all.filter((r) => r.status === 429).length, 11);
    } finally {
      for (const app of apps) await app.close();
      await second.close();
    }
  });

  test("a function-valued limit without the store's own fails at init, and every request with it", async () => {
    const logger = collectingLogger();
    await withErl({ windowMs: W, limit: () => 5, logger, store: new WinlimitStore({ limiter: ctx.limiter }) }, async ({ get }) => {
      assert.match(String(logger.logged[0]?.[0]?.message), /limit is a function.*give WinlimitStore a limit of its own/);
      assert.equal((await get()).status, 500);
    });
  });

  test("a function-valued limit with the store's own limit works", async () => {
    await withErl({ windowMs: W, limit: () => 1, store: new WinlimitStore({ limiter: ctx.limiter, limit: 1 }) }, async ({ get }) => {
      assert.deepEqual(await statuses(get, 2), [200, 429]);
    });
  });

  test("a store limit that differs from express-rate-limit's fails at init", async () => {
    const logger = collectingLogger();
    await withErl({ windowMs: W, limit: 5, logger, store: new WinlimitStore({ limiter: ctx.limiter, limit: 10 }) }, async ({ get }) => {
      assert.match(String(logger.logged[0]?.[0]?.message), /limit \(10\) and express-rate-limit's \(5\) differ/);
      assert.equal((await get()).status, 500);
    });
  });
});
