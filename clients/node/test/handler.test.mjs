// handler: the response to a rejected request built by the app from the request and the
// decision, with the rate-limit fields and Retry-After already set unless it sets its own;
// on Express and Fastify served by their real HTTP servers over a real redis-server.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FRAMEWORKS, withApp } from "./support/apps.mjs";
import { redisForFile } from "./support/fixture.mjs";

const W = 60_000;
const ctx = redisForFile();
const onceAMinute = (l, key) => l.fixed(key, W, 1);
const body = (path, decision) => ({ error: "slow down", path, retryAfterMs: decision.retryAfterMs });

// Each framework's own way to answer with JSON, plain and async.
const HANDLERS = {
  express: {
    plain: (req, res, decision) => res.json(body(req.url, decision)),
    async: async (req, res, decision) => res.json(body(req.url, decision)),
    own: (req, res) => res.status(503).set("Retry-After", "120").json({ error: "come back in two minutes" }),
  },
  fastify: {
    plain: (request, reply, decision) => reply.send(body(request.url, decision)),
    async: async (request, reply, decision) => body(request.url, decision),
    own: (request, reply) => reply.code(503).header("Retry-After", "120").send({ error: "come back in two minutes" }),
  },
};

async function twice(framework, handler) {
  return withApp(framework, { limiter: ctx.limiter, check: onceAMinute, handler }, async (get) => [await get(), await get()]);
}

for (const framework of Object.keys(FRAMEWORKS)) {
  describe(framework, () => {
    for (const kind of ["plain", "async"]) {
      test(`a rejection gets the app's JSON 429 with the fields (${kind} handler)`, async () => {
        const [accepted, rejected] = await twice(framework, HANDLERS[framework][kind]);
        assert.deepEqual([accepted.status, rejected.status], [200, 429]);
        assert.match(rejected.headers.get("content-type"), /^application\/json/);
        const sent = await rejected.json();
        assert.deepEqual([sent.error, sent.path], ["slow down", "/"]);
        // The decision handed over is the one the fields describe.
        assert.ok(sent.retryAfterMs > 0 && sent.retryAfterMs <= W);
        assert.equal(rejected.headers.get("Retry-After"), String(Math.ceil(sent.retryAfterMs / 1000)));
        assert.equal(rejected.headers.get("RateLimit-Policy"), '"winlimit";q=1;w=60');
        assert.match(rejected.headers.get("RateLimit"), /^"winlimit";r=0;t=\d+$/);
      });
    }

    test("fields the handler sets are kept", async () => {
      const [, rejected] = await twice(framework, HANDLERS[framework].own);
      assert.deepEqual([rejected.status, rejected.headers.get("Retry-After")], [503, "120"]);
      assert.equal(rejected.headers.get("RateLimit-Policy"), '"winlimit";q=1;w=60');
    });

    test("an error thrown in the handler is the app's 500", async () => {
      const [, rejected] = await twice(framework, () => {
        throw new Error("a bug in the handler");
      });
      assert.equal(rejected.status, 500);
    });

    test("the default is 429 with a short text", async () => {
      const [, rejected] = await twice(framework, undefined);
      assert.deepEqual([rejected.status, await rejected.text()], [429, "Too Many Requests"]);
    });
  });
}
