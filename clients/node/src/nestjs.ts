/**
 * A storage for @nestjs/throttler, so its guard, `@Throttle` and `@SkipThrottle` decide on
 * winlimit:
 *
 *     ThrottlerModule.forRoot({ throttlers: [{ ttl: 60_000, limit: 100 }],
 *                               storage: new WinlimitThrottlerStorage(limiter) });
 *
 * Each hit is one recording call (WINLIMIT.SLIDE, exact, by default; FIXED or GCRA by
 * option), with BLOCK for the guard's `blockDuration` when it is above 0. The record the
 * guard reads is computed from the decision, so its X-RateLimit-* and Retry-After fields
 * tell what the server decided.
 */

import { ceilSeconds } from "./decision";
import type { Decision } from "./decision";
import type { Limiter } from "./limiter";

/** The record @nestjs/throttler's `ThrottlerStorage.increment` resolves to. */
export interface ThrottlerStorageRecord {
  /** Units in the window after this hit; above `limit` when the hit was rejected. */
  totalHits: number;
  /** Seconds (rounded up) until nothing counts in the window. */
  timeToExpire: number;
  /** True when the hit was rejected (the guard then answers 429). */
  isBlocked: boolean;
  /** Seconds (rounded up) until the same hit would be accepted; 0 when accepted. */
  timeToBlockExpire: number;
}

/** Which winlimit command counts the hits. */
export type ThrottlerAlgorithm = "slide" | "fixed" | "gcra";

/** Options of WinlimitThrottlerStorage. */
export interface WinlimitThrottlerStorageOptions {
  /** `"slide"` (the default: an exact sliding window of `ttl`), `"fixed"` (a counter per
   * window of `ttl`, as the throttler's own storage counts) or `"gcra"` (`limit` per `ttl`,
   * at most `limit` at once). */
  algorithm?: ThrottlerAlgorithm;
  /** Put before every key (default `"throttler:"`). */
  prefix?: string;
}

const ALGORITHMS: readonly ThrottlerAlgorithm[] = ["slide", "fixed", "gcra"];

/** A @nestjs/throttler `ThrottlerStorage` on a winlimit Limiter (and so on the
 * application's own Redis client, with its backend, rejection cache and breaker). */
export class WinlimitThrottlerStorage {
  readonly algorithm: ThrottlerAlgorithm;
  readonly prefix: string;

  constructor(
    readonly limiter: Limiter,
    options: WinlimitThrottlerStorageOptions = {},
  ) {
    if (limiter === null || typeof limiter !== "object" || typeof limiter.slide !== "function") {
      throw new TypeError("WinlimitThrottlerStorage takes a winlimit Limiter");
    }
    const algorithm = options.algorithm ?? "slide";
    if (!ALGORITHMS.includes(algorithm)) {
      throw new RangeError(`algorithm must be one of ${ALGORITHMS.join(", ")}, not ${JSON.stringify(algorithm)}`);
    }
    const prefix = options.prefix ?? "throttler:";
    if (typeof prefix !== "string") throw new TypeError(`prefix must be a string, not ${typeof prefix}`);
    this.algorithm = algorithm;
    this.prefix = prefix;
  }

  /** One hit of `key` for the throttler `throttlerName`: `limit` per `ttl` ms, and once
   * rejected, refused for `blockDuration` ms (0 or less: no block). The throttler's name is
   * part of the Redis key, so named throttlers never share a count. */
  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const redisKey = `${this.prefix}${throttlerName}:${key}`;
    const options = blockDuration > 0 ? { blockMs: Math.ceil(blockDuration) } : {};
    const decision = await this.limiter[this.algorithm](redisKey, ttl, limit, options);
    return recordOf(decision, ttl);
  }
}

/** The throttler's record for a decision: a rejected hit is one more than the window holds,
 * as the throttler's own storage counts it, and its wait is the decision's (-1, a limit
 * below 1 that nothing can meet: the whole ttl). */
export function recordOf(decision: Decision, ttlMs: number): ThrottlerStorageRecord {
  const inWindow = Math.max(0, decision.limit - decision.remaining);
  if (decision.allowed) {
    return { totalHits: inWindow, timeToExpire: ceilSeconds(decision.resetAfterMs), isBlocked: false, timeToBlockExpire: 0 };
  }
  const waitMs = decision.retryAfterMs >= 0 ? decision.retryAfterMs : ttlMs;
  return {
    totalHits: Math.max(inWindow, decision.limit) + 1,
    timeToExpire: ceilSeconds(decision.resetAfterMs),
    isBlocked: true,
    timeToBlockExpire: Math.max(1, ceilSeconds(waitMs)),
  };
}
