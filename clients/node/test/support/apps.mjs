// An Express app and a Fastify app, each limited by winlimit's middleware and served by its
// real HTTP server on a free loopback port, for the tests to call with fetch.

import express from "express";
import Fastify from "fastify";
import { once } from "node:events";
import { rateLimit } from "winlimit/express";
import { winlimitHook, winlimitPlugin } from "winlimit/fastify";
import { CALL_DEADLINE_MS } from "./ready.mjs";

const PATHS = ["/", "/health"];

const urlOf = (host, port) => `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

async function expressApp({ host = "127.0.0.1", ...options }) {
  const app = express();
  app.set("env", "test"); // the default error handler then answers 500 without printing the stack
  const limited = rateLimit(options);
  app.use(limited);
  for (const path of PATHS) app.get(path, (req, res) => res.set("X-App", "kept").type("text/plain").send("hello"));
  const server = app.listen(0, host);
  await once(server, "listening");
  return {
    url: urlOf(host, server.address().port),
    limited,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function fastifyApp({ host = "127.0.0.1", ...options }) {
  const app = Fastify();
  // The plugin, or with `direct` the hook it adds, built here so its counters can be read.
  const limited = options.direct ? winlimitHook(options) : undefined;
  if (limited) app.addHook("onRequest", limited);
  else await app.register(winlimitPlugin, options);
  for (const path of PATHS) app.get(path, async (request, reply) => reply.header("X-App", "kept").type("text/plain").send("hello"));
  await app.listen({ port: 0, host });
  return { url: urlOf(host, app.server.address().port), limited, close: () => app.close() };
}

/** framework name -> serve(options): an app with routes `/` and `/health`, limited by the
 * framework's middleware with these options (and `host`, default 127.0.0.1, to listen on);
 * resolves to { url, limited, close }, `limited`
 * the middleware object (for Fastify with `direct: true`, the hook). */
export const FRAMEWORKS = { express: expressApp, fastify: fastifyApp };

/** Serve (with the tests' call deadline unless `options` sets `timeoutMs`), run `body(get, limited)` with `get(path, headers)` fetching from the app, close. */
export async function withApp(framework, options, body) {
  const app = await FRAMEWORKS[framework]({ timeoutMs: CALL_DEADLINE_MS, ...options });
  try {
    return await body((path = "/", headers = {}) => fetch(app.url + path, { headers }), app.limited);
  } finally {
    await app.close();
  }
}
