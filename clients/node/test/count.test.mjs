// `count` of the Express and the Fastify middleware, each served by the framework's real HTTP
// server and called with fetch, over a real redis-server: only the requests that count use up
// the limit; a handler that throws is a failure; `blockMs` blocks the key.
//
// Each app has one route, `/login?as=ok|bad|throw`: 200, 401, or an error thrown.

import assert from "node:assert/strict";
import { once } from "node:events";
import { describe, test } from "node:test";
import express from "express";
import Fastify from "fastify";
import { rateLimit } from "winlimit/express";
import { winlimitHook, winlimitPlugin } from "winlimit/fastify";
import { redisForFile } from "./support/fixture.mjs";

const W = 60_000;
const LIMIT = 2;
const ctx = redisForFile();

function login(outcome) {
  if (outcome === "throw") throw new Error("the handler failed");
  return outcome === "ok" ? [200, "ok"] : [401, "bad password"];
}

const APPS = {
  async express(options) {
    const app = express();
    app.set("env", "test"); // the default error handler then answers 500 without printing the stack
    app.use(rateLimit(options));
    app.get("/login", (req, res) => {
      const [status, text] = login(req.query.as);
      res.status(status).type("text/plain").send(text);
    });
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    return {
      url: `http://127.0.0.1:${server.address().port}`,
      close: () => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      },
    };
  },
  async fastify(options) {
    const app = Fastify();
    await app.register(winlimitPlugin, options);
    app.get("/login", async (request, reply) => {
      const [status, text] = login(request.query.as);
      return reply.code(status).type("text/plain").send(text);
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    return { url: `http://127.0.0.1:${app.server.address().port}`, close: () => app.close() };
  },
};

/** Serve `framework` limited by a FIXED limit of LIMIT per W with `options`; run `body(login)`
 * with `login(outcome)` resolving to the response's status. */
async function served(framework, options, body) {
  const app = await APPS[framework]({ limiter: ctx.limiter, check: (l, key) => l.fixed(key, W, LIMIT), key: () => "ip", ...options });
  try {
    return await body(async (outcome) => (await fetch(`${app.url}/login?as=${outcome}`)).status, app.url);
  } finally {
    await app.close();
  }
}

/** The units used in the current window (the FIXED counter of the key). */
async function used() {
  return Number((await ctx.admin.sendCommand(["GET", "rl:ip"])) ?? 0);
}

async function times(n, f) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await f());
  return out;
}

for (const framework of Object.keys(APPS)) {
  describe(framework, () => {
    test("count failures: only failures use up the limit", async () => {
      await served(framework, { count: "failures" }, async (get) => {
        assert.deepEqual(await times(5, () => get("ok")), [200, 200, 200, 200, 200]);
        assert.equal(await used(), 0);
        assert.deepEqual(await times(LIMIT, () => get("bad")), [401, 401]);
        assert.equal(await used(), LIMIT);
        assert.equal(await get("ok"), 429);
      });
    });

    test("count successes: only successes use up the limit", async () => {
      await served(framework, { count: "successes" }, async (get) => {
        assert.deepEqual(await times(5, () => get("bad")), [401, 401, 401, 401, 401]);
        assert.equal(await used(), 0);
        assert.deepEqual(await times(LIMIT, () => get("ok")), [200, 200]);
        assert.equal(await get("bad"), 429);
      });
    });

    test("a handler that throws counts as a failure", async () => {
      await served(framework, { count: "successes" }, async (get) => {
        assert.equal(await get("throw"), 500);
        assert.equal(await used(), 0);
      });
      await served(framework, { count: "failures" }, async (get) => {
        assert.deepEqual(await times(LIMIT, () => get("throw")), [500, 500]);
        assert.equal(await used(), LIMIT);
        assert.equal(await get("ok"), 429);
      });
    });

    test("count all (the default) counts every outcome", async () => {
      await served(framework, {}, async (get) => {
        assert.deepEqual([await get("ok"), await get("bad"), await get("ok")], [200, 401, 429]);
        assert.equal(await used(), LIMIT);
      });
    });

    test("isFailure overrides which status fails", async () => {
      await served(framework, { count: "failures", isFailure: (status) => status === 200 }, async (get) => {
        assert.deepEqual(await times(3, () => get("bad")), [401, 401, 401]);
        assert.equal(await used(), 0);
        assert.deepEqual(await times(LIMIT, () => get("ok")), [200, 200]);
        assert.equal(await get("ok"), 429);
      });
    });

    test("blockMs blocks the key once the failures are used up", async () => {
      await served(framework, { count: "failures", blockMs: 900_000 }, async (get, url) => {
        await times(LIMIT, () => get("bad"));
        const response = await fetch(`${url}/login?as=ok`);
        assert.equal(response.status, 429);
        // The block's 15 minutes, not the window's at most 60 s.
        const retryAfterMs = Number(response.headers.get("Retry-After")) * 1000;
        assert.ok(W < retryAfterMs && retryAfterMs <= 900_000 + 1000, String(retryAfterMs));
      });
    });
  });
}

test("count, isFailure and blockMs are checked when the middleware is made", () => {
  const base = { limiter: ctx.limiter, check: (l, key) => l.fixed(key, W, LIMIT) };
  for (const [options, error] of [[{ count: "some" }, RangeError], [{ isFailure: 400 }, TypeError], [{ blockMs: "5" }, TypeError]]) {
    assert.throws(() => rateLimit({ ...base, ...options }), error);
    assert.throws(() => winlimitHook({ ...base, ...options }), error);
  }
});
