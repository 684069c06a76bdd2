/**
 * Rate limiting for Express (4 and 5) and anything with connect-style middleware:
 *
 *     import { rateLimit } from "winlimit/express";
 *     app.use(rateLimit({ limiter, check: (l, key) => l.slide(key, 60_000, 100) }));
 *
 * An accepted request gets the `RateLimit-Policy` and `RateLimit` fields on its response; a
 * rejected one is answered 429 with them and `Retry-After`. When Redis fails, 503 (or the
 * request goes through without the fields with `failOpen: true`), logged once per request.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { Guard, RateLimitOptions } from "./guard";
import { DEFAULT_IPV6_SUBNET, ipKey } from "./keys";
import { FIELDS, fieldsOn, merged } from "./styles";

export type { Check, Handler, KeyFunction, Logger, RateLimitOptions } from "./guard";
export type { Count, IsFailure } from "./refund";

/** The request as Express gives it: `ip` is Express's (which honours `trust proxy`). */
export type ExpressLikeRequest = IncomingMessage & { ip?: string | undefined };

/** A connect-style middleware; `shadowRejections` counts the requests shadow mode let
 * through that it would have rejected. */
export type Middleware<Req, Res extends ServerResponse = ServerResponse> = ((request: Req, response: Res, next: (error?: unknown) => void) => void) & {
  readonly shadowRejections: number;
};

/** The default key: the client's address, Express's `req.ip` (behind a proxy, set Express's
 * `trust proxy`, or pass a `key` of your own), an IPv6 one as its network of `ipv6Subnet`
 * bits (default 64), as `ipKey` makes it; for keys of your own (`"user:" + remoteAddress(req)`). */
export function remoteAddress(request: ExpressLikeRequest, ipv6Subnet: number = DEFAULT_IPV6_SUBNET): string | undefined {
  const address = clientAddress(request);
  return address === undefined ? undefined : ipKey(address, ipv6Subnet);
}

function clientAddress(request: ExpressLikeRequest): string | undefined {
  return request.ip ?? request.socket?.remoteAddress;
}

/** A middleware limiting every request it sees. */
export function rateLimit<Req extends IncomingMessage = ExpressLikeRequest, Res extends ServerResponse = ServerResponse>(
  options: RateLimitOptions<Req, Res>,
): Middleware<Req, Res> {
  const guard = new Guard<Req, Res>(options, clientAddress);
  const middleware = (request: Req, response: Res, next: (error?: unknown) => void): void => {
    guard.decide(request).then((outcome) => {
      if (outcome.kind === "unavailable") return answer(response, 503, "rate limiter unavailable");
      if (outcome.kind === "unlimited") return next();
      guard.settle(response, outcome);
      const combined = merged(fieldsOn((name) => response.getHeader(name)), outcome.headers, guard.style);
      for (const name of FIELDS) response.removeHeader(name);
      for (const [name, value] of Object.entries(combined)) response.setHeader(name, value);
      if (!outcome.reject) return next();
      if (options.handler === undefined) return answer(response, 429, "Too Many Requests");
      response.statusCode = 429;
      const handler = options.handler;
      return Promise.resolve()
        .then(() => handler(request, response, outcome.decision))
        .then(
          () => undefined,
          (error: unknown) => {
            response.statusCode = 500; // Express keeps a status of 400 or more for the error's answer
            next(error);
          },
        );
    }, next);
  };
  return Object.defineProperty(middleware, "shadowRejections", { get: () => guard.shadowRejections, enumerable: true }) as Middleware<Req, Res>;
}

function answer(response: ServerResponse, status: number, text: string): void {
  response.statusCode = status;
  response.setHeader("Content-Type", "text/plain; charset=utf-8");
  response.end(text);
}
