// The Fastify plugin follows the fastify-plugin convention: it has no encapsulation context
// of its own, so it limits the context it is registered in, children included, and nothing
// outside it.

import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { winlimitPlugin } from "winlimit/fastify";
import { redisForFile } from "./support/fixture.mjs";

const ctx = redisForFile({ library: "ioredis 6" });
const options = () => ({ limiter: ctx.limiter, check: (l, key) => l.fixed(key, 60_000, 1), key: (req) => req.url });

const hello = async () => "hello";

/** Listen, GET each path twice, close: [status of the second GET, RateLimit of the first] per path. */
async function twice(app, paths) {
  await app.listen({ port: 0, host: "127.0.0.1" });
  try {
    const out = {};
    for (const path of paths) {
      const first = await fetch(`http://127.0.0.1:${app.server.address().port}${path}`);
      const second = await fetch(`http://127.0.0.1:${app.server.address().port}${path}`);
      out[path] = [second.status, first.headers.get("RateLimit")];
    }
    return out;
  } finally {
    await app.close();
  }
}

test("registered on the root, it limits every route, those of child plugins too", async () => {
  const app = Fastify();
  await app.register(winlimitPlugin, options());
  app.get("/root", hello);
  app.register(async (child) => child.get("/child", hello));
  assert.deepEqual(await twice(app, ["/root", "/child"]), {
    "/root": [429, '"winlimit";r=0;t=60'],
    "/child": [429, '"winlimit";r=0;t=60'],
  });
});

test("registered inside a plugin, it limits that plugin's routes only", async () => {
  const app = Fastify();
  app.register(async (limited) => {
    await limited.register(winlimitPlugin, options());
    limited.get("/limited", hello);
  });
  app.get("/free", hello);
  app.register(async (sibling) => sibling.get("/sibling", hello));
  assert.deepEqual(await twice(app, ["/limited", "/free", "/sibling"]), {
    "/limited": [429, '"winlimit";r=0;t=60'],
    "/free": [200, null],
    "/sibling": [200, null],
  });
  assert.deepEqual(await ctx.admin.sendCommand(["KEYS", "*"]), ["rl:/limited"]);
});
