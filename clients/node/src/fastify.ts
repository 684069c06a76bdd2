/**
 * Rate limiting for Fastify, as an `onRequest` hook:
 *
 *     import { winlimitPlugin } from "winlimit/fastify";
 *     await app.register(winlimitPlugin, { limiter, check: (l, key) => l.slide(key, 60_000, 100) });
 *
 * Like fastify-plugin, the plugin does not encapsulate itself: registered on the root it
 * limits every route, registered inside a plugin, that plugin's routes. The same options and
 * answers as `winlimit/express`.
 */

import type { FastifyPluginCallback, FastifyRequest } from "fastify";
import { Guard, RateLimitOptions } from "./guard";

export type { Check, KeyFunction, Logger, RateLimitOptions } from "./guard";

/** The plugin's options. */
export type WinlimitPluginOptions = RateLimitOptions<FastifyRequest>;

/** The plugin: register it with the options. */
export const winlimitPlugin: FastifyPluginCallback<WinlimitPluginOptions> = (fastify, options, done) => {
  const guard = new Guard<FastifyRequest>(options, (request) => request.ip);
  fastify.addHook("onRequest", async (request, reply) => {
    const outcome = await guard.decide(request);
    if (outcome.kind === "unavailable") {
      return reply.code(503).type("text/plain; charset=utf-8").send("rate limiter unavailable");
    }
    if (outcome.kind === "unlimited") return;
    reply.headers(outcome.decision.headers());
    if (!outcome.decision.allowed) return reply.code(429).type("text/plain; charset=utf-8").send("Too Many Requests");
  });
  done();
};

// What fastify-plugin sets: no encapsulation context of its own, and a name in errors.
Object.assign(winlimitPlugin, {
  [Symbol.for("skip-override")]: true,
  [Symbol.for("fastify.display-name")]: "winlimit",
});
