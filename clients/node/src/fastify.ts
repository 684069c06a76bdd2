/**
 * Rate limiting for Fastify, as an `onRequest` hook:
 *
 *     import { winlimitPlugin } from "winlimit/fastify";
 *     await app.register(winlimitPlugin, { limiter, check: (l, key) => l.slide(key, 60_000, 100) });
 *
 * Like fastify-plugin, the plugin does not encapsulate itself: registered on the root it
 * limits every route, registered inside a plugin, that plugin's routes. The same options and
 * answers as `winlimit/express`. `winlimitHook(options)` is the hook itself, for
 * `app.addHook("onRequest", hook)`, with its `shadowRejections` to read.
 */

import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from "fastify";
import { Guard, RateLimitOptions } from "./guard";
import { DEFAULT_IPV6_SUBNET, ipKey } from "./keys";
import { FIELDS, fieldsOn, merged } from "./styles";

export type { Check, Handler, KeyFunction, Logger, RateLimitOptions } from "./guard";
export type { Count, IsFailure } from "./refund";

/** The plugin's options. */
export type WinlimitPluginOptions = RateLimitOptions<FastifyRequest, FastifyReply>;

/** An `onRequest` hook; `shadowRejections` counts the requests shadow mode let through that
 * it would have rejected. */
export type WinlimitHook = ((request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) & {
  readonly shadowRejections: number;
};

/** The default key: the client's address, Fastify's `request.ip` (behind a proxy, set
 * Fastify's `trustProxy`), an IPv6 one as its network of `ipv6Subnet` bits (default 64), as
 * `ipKey` makes it; for keys of your own (`"user:" + remoteAddress(request)`). */
export function remoteAddress(request: FastifyRequest, ipv6Subnet: number = DEFAULT_IPV6_SUBNET): string {
  return ipKey(request.ip, ipv6Subnet);
}

/** The hook that limits each request. */
export function winlimitHook(options: WinlimitPluginOptions): WinlimitHook {
  const guard = new Guard<FastifyRequest, FastifyReply>(options, (request) => request.ip);
  const hook = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const outcome = await guard.decide(request);
    if (outcome.kind === "unavailable") {
      return reply.code(503).type("text/plain; charset=utf-8").send("rate limiter unavailable");
    }
    if (outcome.kind === "unlimited") return undefined;
    guard.settle(reply.raw, outcome);
    const combined = merged(fieldsOn((name) => reply.getHeader(name)), outcome.headers, guard.style);
    for (const name of FIELDS) reply.removeHeader(name);
    reply.headers(combined);
    if (!outcome.reject) return undefined;
    if (options.handler === undefined) return reply.code(429).type("text/plain; charset=utf-8").send("Too Many Requests");
    reply.code(429);
    let answered: unknown;
    try {
      answered = await options.handler(request, reply, outcome.decision);
    } catch (error) {
      reply.code(500); // Fastify keeps a status of 400 or more for the error's answer
      throw error;
    }
    return answered === reply || reply.sent ? reply : reply.send(answered);
  };
  return Object.defineProperty(hook, "shadowRejections", { get: () => guard.shadowRejections, enumerable: true }) as WinlimitHook;
}

/** The plugin: register it with the options. */
export const winlimitPlugin: FastifyPluginCallback<WinlimitPluginOptions> = (fastify, options, done) => {
  fastify.addHook("onRequest", winlimitHook(options));
  done();
};

// What fastify-plugin sets: no encapsulation context of its own, and a name in errors.
Object.assign(winlimitPlugin, {
  [Symbol.for("skip-override")]: true,
  [Symbol.for("fastify.display-name")]: "winlimit",
});
