// The Fastify plugin follows the fastify-plugin convention: it has no encapsulation context
// of its own, so it limits the context it is registered in, children included, and nothing
// outside it.

import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import Fastify from "fastify";
import { Limiter } from "winlimit";
import { winlimitPlugin } from "winlimit/fastify";
import { LIBRARIES } from "./support/clients.mjs";
import { RedisServer, adminClient } from "./support/servers.mjs";

let server;
let admin;
let connection;
let options;
before(async () => {
  server = await RedisServer.start();
  admin = await adminClient(server.port);
  connection = await LIBRARIES["ioredis 6"].plain(server.port);
  options = { limiter: new Limiter(connection.client), check: (l, key) => l.fixed(key, 60_000, 1), key: (req) => req.url };
});
after(async () => {
  await connection?.close();
  await admin?.close();
  await server?.stop();
});
beforeEach(async () => admin.sendCommand(["FLUSHALL"]));

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
  await app.register(winlimitPlugin, options);
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
    await limited.register(winlimitPlugin, options);
    limited.get("/limited", hello);
  });
  app.get("/free", hello);
  app.register(async (sibling) => sibling.get("/sibling", hello));
  assert.deepEqual(await twice(app, ["/limited", "/free", "/sibling"]), {
    "/limited": [429, '"winlimit";r=0;t=60'],
    "/free": [200, null],
    "/sibling": [200, null],
  });
  assert.deepEqual(await admin.sendCommand(["KEYS", "*"]), ["rl:/limited"]);
});
