// An Express app and a Fastify app, each limited by winlimit's middleware and served by its
// real HTTP server on a free loopback port, for the tests to call with fetch.

import express from "express";
import Fastify from "fastify";
import { once } from "node:events";
import { rateLimit } from "winlimit/express";
import { winlimitPlugin } from "winlimit/fastify";

const PATHS = ["/", "/health"];

async function expressApp(options) {
  const app = express();
  app.set("env", "test"); // the default error handler then answers 500 without printing the stack
  app.use(rateLimit(options));
  for (const path of PATHS) app.get(path, (req, res) => res.set("X-App", "kept").type("text/plain").send("hello"));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function fastifyApp(options) {
  const app = Fastify();
  await app.register(winlimitPlugin, options);
  for (const path of PATHS) app.get(path, async (request, reply) => reply.header("X-App", "kept").type("text/plain").send("hello"));
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { url: `http://127.0.0.1:${app.server.address().port}`, close: () => app.close() };
}

/** framework name -> serve(options): an app with routes `/` and `/health`, limited by the
 * framework's middleware with these options; resolves to { url, close }. */
export const FRAMEWORKS = { express: expressApp, fastify: fastifyApp };

/** Serve, run `body(get)` with `get(path, headers)` fetching from the app, close. */
export async function withApp(framework, options, body) {
  const app = await FRAMEWORKS[framework](options);
  try {
    return await body((path = "/", headers = {}) => fetch(app.url + path, { headers }));
  } finally {
    await app.close();
  }
}
