/**
 * What the Express and the Fastify middleware share: the key, the call, the time limit and
 * the failure policy. Mirrors the Python client's ASGI middleware.
 */

import type { ServerResponse } from "node:http";
import type { Decision } from "./decision";
import { BreakerOpen, RedisCallError } from "./errors";
import type { Limiter } from "./limiter";
import { MemoryLimiter } from "./memory";
import { decided, MetricsSink } from "./counting";
import { addressKey, DEFAULT_IPV6_SUBNET } from "./keys";
import { Count, Counting, IsFailure } from "./refund";
import { ShadowLog } from "./shadow";
import { checkStyle, DEFAULT_STYLE, fields, HeaderStyle } from "./styles";

/** `check(limiter, key, request)`: the call that decides, e.g. `(l, key) => l.gcra(key, 60_000, 100)`;
 * the request lets limits depend on it (a paid tier, say). `any` by default, so a check typed
 * for the framework's own request type is accepted. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Check<Req = any> = (limiter: Limiter, key: string, request: Req) => Promise<Decision>;

/** `key(request)`: whose limit the request counts against (may be async); `undefined` or
 * `null` leaves the request unlimited, e.g. for health checks. */
export type KeyFunction<Req> = (request: Req) => string | null | undefined | Promise<string | null | undefined>;

/** Where the middleware writes a line: `"error"` for a failed check, `"warn"` for what
 * shadow mode let through and for Redis failing while a fallback decides, `"info"` for
 * Redis answering again. */
export type Logger = (message: string, level: "error" | "warn" | "info") => void;

/** The options of both middleware. */
/** `handler(request, response, decision)`: answers a rejected request (Express: `res`,
 * Fastify: `reply`); the rate-limit fields and Retry-After are already set, and the status is
 * 429, unless it sets its own. */
export type Handler<Req, Res> = (request: Req, response: Res, decision: Decision) => unknown;

/** The options of both middleware; `Res` is the framework's response (Express's `res`,
 * Fastify's `reply`). */
export interface RateLimitOptions<Req, Res = unknown> {
  /** The limiter to call: a Redis `Limiter`, or a `MemoryLimiter` deciding in this process
   * (development and single-process apps; it never fails, so it takes no `fallback`). */
  limiter: Limiter | MemoryLimiter;
  /** The call that decides: any method of the limiter, with any options. */
  check: Check<Req>;
  /** Whose limit a request counts against (default: the client's IP address, an IPv6 one as
   * its network of `ipv6Subnet` bits). */
  key?: KeyFunction<Req>;
  /** The prefix of the IPv6 networks the default key cuts addresses to, from 1 to 128 (128:
   * whole addresses); default 64. */
  ipv6Subnet?: number;
  /** Put before the key (default `"rl:"`). */
  prefix?: string;
  /** Let requests through, without the fields, when Redis fails (default false: answer 503). */
  failOpen?: boolean;
  /** How long to wait for Redis before counting it as failed (default 1,000 ms); `null`
   * waits as long as the Redis client does. */
  timeoutMs?: number | null;
  /** Where to log a failed check (default `console.error`) and, in shadow mode, a request
   * let through over the limit (default `console.warn`). */
  logger?: Logger;
  /** The header fields: `"draft-11"` (default), `"draft-7"`, `"legacy"`, or `null` for none
   * but Retry-After on a 429. */
  headers?: HeaderStyle;
  /** Counts each request's decision: a `Metrics` from winlimit/metrics. */
  metrics?: MetricsSink;
  /** A MemoryLimiter that decides, with the same `check`, while Redis fails or gives no
   * answer in time, instead of failing open or closed: one warning per outage, and Redis
   * decides again as soon as it answers. It counts per process: with N processes, up to N
   * times the limit passes while Redis is down. */
  fallback?: MemoryLimiter;
  /** Answers a rejected request instead of the default 429 with a short text. */
  handler?: Handler<Req, Res>;
  /** Which requests use up the limit: `"all"` (default), `"failures"` or `"successes"`.
   * Every request is counted before the handler runs; once the response is sent, one that
   * does not count gets its units back (REFUND). A failure is a status of 400 or more, or
   * what `isFailure(status)` says; a handler that throws is one (answered 500). */
  count?: Count;
  /** Whether a response of this status is a failure (default: status >= 400). */
  isFailure?: IsFailure;
  /** Every call of the check asks BLOCK this many ms, unless it gives its own `blockMs`. */
  blockMs?: number;
  /** Check and count as usual, but let every request through: a rejected one gets the
   * fields as the decision gives them, no 429 and no Retry-After, and is logged at most once
   * per key per retryAfterMs (per policy window when it is -1). Default false. */
  shadow?: boolean;
}

/** What the middleware does with a request: "limited" puts `headers` on the response and
 * answers 429 when `reject`; "unlimited" lets it through untouched; "unavailable" is 503. */
export type Outcome =
  | {
      readonly kind: "limited";
      readonly decision: Decision;
      readonly headers: Record<string, string>;
      readonly reject: boolean;
      /** The limiter the check was given (a Recorder when its units may be refunded). */
      readonly limiter: Limiter;
    }
  | { readonly kind: "unlimited" }
  | { readonly kind: "unavailable" };

/** The defaults of the middleware options. */
export const DEFAULT_PREFIX = "rl:";
export const DEFAULT_TIMEOUT_MS = 1000;

/** No answer from Redis within the middleware's `timeoutMs`. */
export class CheckTimedOut extends Error {
  constructor(timeoutMs: number) {
    super(`no answer from Redis within ${timeoutMs} ms`);
    this.name = "TimeoutError";
  }
}

/** The decision for one request, under the options' failure policy. */
export class Guard<Req, Res = unknown> {
  private readonly options: RateLimitOptions<Req, Res>;
  private readonly key: KeyFunction<Req>;
  private readonly prefix: string;
  private readonly timeoutMs: number | null;
  private readonly logger: Logger;
  private readonly counting: Counting;
  /** The header style of the responses. */
  readonly style: HeaderStyle;
  /** The requests shadow mode let through that would have been rejected. */
  shadowRejections = 0;
  /** Redis failed and the fallback decides, until Redis answers again. */
  private redisDown = false;
  /** The limiter the check is given. A MemoryLimiter has the Limiter's methods, which is all a
   * check calls; it has no breaker (the guard reads `breaker?.`) and never fails. */
  private readonly limiter: Limiter;

  constructor(
    options: RateLimitOptions<Req, Res>,
    remoteAddress: (request: Req) => string | undefined,
    private readonly shadowLog = new ShadowLog(),
  ) {
    if (options === null || typeof options !== "object") throw new TypeError("rate limit options are required");
    if (options.limiter === undefined) throw new TypeError("the `limiter` option is required");
    if (typeof options.check !== "function") throw new TypeError("the `check` option must be a function");
    if (options.limiter instanceof MemoryLimiter && options.fallback !== undefined) {
      throw new TypeError("the `fallback` option is for a Redis limiter: a MemoryLimiter decides in this process and never fails, so it needs none");
    }
    if (options.handler !== undefined && typeof options.handler !== "function") throw new TypeError("the `handler` option must be a function");
    const timeoutMs = options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs;
    if (timeoutMs !== null && (typeof timeoutMs !== "number" || !(timeoutMs > 0) || !Number.isFinite(timeoutMs))) {
      throw new RangeError(`timeoutMs must be a positive number, not ${String(timeoutMs)}`);
    }
    this.options = options;
    this.limiter = options.limiter as Limiter;
    const byAddress = addressKey(remoteAddress, options.ipv6Subnet ?? DEFAULT_IPV6_SUBNET);
    this.key = options.key ?? byAddress;
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.timeoutMs = timeoutMs;
    this.style = checkStyle(options.headers === undefined ? DEFAULT_STYLE : options.headers);
    this.logger = options.logger ?? ((message, level) => console[level](message));
    this.counting = new Counting(options.count, options.isFailure, options.blockMs);
  }

  /** When `response` (the Node response under the framework's) ends, gives a limited
   * request's units back if it does not count. */
  settle(response: ServerResponse, outcome: Outcome): void {
    if (outcome.kind !== "limited") return;
    this.counting.settleOn(response, outcome.decision, outcome.limiter, (error) => {
      const cause = error instanceof Error ? error : new Error(String(error));
      this.logger(`winlimit: refunding a request that does not count failed: ${cause.name}: ${cause.message}`, "error");
    });
  }

  /** "limited" with the decision; "unlimited" when the key is none, or Redis failed and the
   * guard fails open; "unavailable" when Redis failed and it fails closed. Errors that are not
   * Redis's (a bug in `key` or `check`) reject. */
  async decide(request: Req): Promise<Outcome> {
    const key = await this.key(request);
    if (key === undefined || key === null) return { kind: "unlimited" };
    const fullKey = this.prefix + key;
    let decision: Decision;
    const started = performance.now();
    let limiter = this.counting.recorder(this.limiter);
    try {
      decision = await this.withinTime(this.options.check(limiter, fullKey, request));
    } catch (error) {
      if (!(error instanceof RedisCallError || error instanceof CheckTimedOut)) throw error;
      const fallback = this.options.fallback;
      if (fallback === undefined) return this.failed(fullKey, error);
      this.redisFailed(error);
      // The fallback has the limiter's methods: the same check runs on it, through the same
      // counting (its refunds and blockMs), so it decides as Redis would.
      limiter = this.counting.recorder(fallback as unknown as Limiter);
      const asked = performance.now();
      return this.judged(fullKey, await this.options.check(limiter, fullKey, request), asked, limiter);
    }
    if (this.redisDown && this.limiter.breaker?.enabled !== true) {
      this.redisDown = false;
      this.logger("winlimit: Redis answers again: deciding by Redis", "info");
    }
    return this.judged(fullKey, decision, started, limiter);
  }

  /** The first failure of an outage is warned about; the rest of it is quiet (one line per
   * request would flood). */
  private redisFailed(error: RedisCallError | CheckTimedOut): void {
    // The limiter's breaker warns once per outage itself (and says when Redis is back).
    if (this.redisDown || this.limiter.breaker?.enabled === true) return;
    this.redisDown = true;
    const cause = error.cause instanceof Error ? error.cause : error;
    this.logger(
      `winlimit: Redis failed (${cause.name}: ${error.message}): deciding by the in-process fallback until it answers again; ` +
        "its limits count per process",
      "warn",
    );
  }

  /** The outcome of a decision: its fields, and a 429 when rejected, unless in shadow mode. */
  judged(key: string, decision: Decision, startedMs?: number, limiter: Limiter = this.limiter): Outcome {
    const shadowed = this.options.shadow === true && !decision.allowed;
    decided(this.options.metrics, decision, startedMs, shadowed);
    const headers = fields(decision, this.style);
    if (decision.allowed || this.options.shadow !== true) return { kind: "limited", decision, headers, reject: !decision.allowed, limiter };
    this.shadowRejections++;
    delete headers["Retry-After"];
    const warning = this.shadowLog.warning(key, decision, decision.headers()["RateLimit"]);
    if (warning !== undefined) this.logger(warning, "warn");
    return { kind: "limited", decision, headers, reject: false, limiter };
  }

  /** The outcome when Redis failed or gave no answer in time: 503, or through when failing
   * open. One line, no stack: an outage would print one per request. */
  failed(key: string, error: RedisCallError | CheckTimedOut): Outcome {
    this.options.metrics?.failed(this.limiter.name);
    const failOpen = this.options.failOpen === true;
    // The breaker said so when it opened: one line per request would flood.
    if (error instanceof BreakerOpen) return { kind: failOpen ? "unlimited" : "unavailable" };
    const cause = error.cause instanceof Error ? error.cause : error;
    this.logger(
      `winlimit: rate limit check for ${JSON.stringify(key)} failed, failing ${failOpen ? "open" : "closed"}: ` +
        `${cause.name}: ${error.message}`,
      "error",
    );
    return { kind: failOpen ? "unlimited" : "unavailable" };
  }

  private withinTime<T>(work: Promise<T>): Promise<T> {
    // Not the client's own timeout: with default settings a stopped server can take seconds
    // (reconnects, retries) to fail a call, and every request would wait that long.
    const timeoutMs = this.timeoutMs;
    if (timeoutMs === null) return work;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CheckTimedOut(timeoutMs)), timeoutMs);
    });
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  }
}
