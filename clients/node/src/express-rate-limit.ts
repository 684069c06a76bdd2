/**
 * A store for express-rate-limit, so its middleware, headers and options decide on winlimit:
 *
 *     app.use(rateLimit({ windowMs: 60_000, limit: 100, standardHeaders: "draft-8",
 *                         store: new WinlimitStore({ limiter }) }));
 *
 * Each request is one recording call (WINLIMIT.SLIDE, exact, by default; FIXED or GCRA by
 * option). `totalHits` is what the window holds (one more than the limit when rejected) and
 * `resetTime` when the same request would be accepted (rejected) or when nothing counts any
 * more (accepted), so every `standardHeaders` draft and Retry-After tell what the server
 * decided. `decrement` gives a unit back (REFUND), for skipFailedRequests and
 * skipSuccessfulRequests; a rejected request recorded nothing, so its decrement gives back
 * nothing either.
 */

import type { Decision } from "./decision";
import type { Limiter } from "./limiter";
import { PendingRejections } from "./pending-rejections";

/** What `increment` and `get` resolve to (express-rate-limit's `ClientRateLimitInfo`). */
export interface ClientRateLimitInfo {
  totalHits: number;
  resetTime: Date | undefined;
}

/** The options express-rate-limit passes to `init` that the store reads. */
export interface RateLimitOptionsSeen {
  windowMs?: unknown;
  limit?: unknown;
  skipFailedRequests?: unknown;
}

/** Which winlimit command counts the requests. */
export type StoreAlgorithm = "slide" | "fixed" | "gcra";

/** Options of WinlimitStore. */
export interface WinlimitStoreOptions {
  /** The winlimit Limiter (over the application's Redis client). */
  limiter: Limiter;
  /** The window in ms; default express-rate-limit's `windowMs`. */
  windowMs?: number;
  /** Requests per window; default express-rate-limit's `limit` when it is a number. */
  limit?: number;
  /** `"slide"` (the default: exact sliding window), `"fixed"` or `"gcra"`. */
  algorithm?: StoreAlgorithm;
  /** Put before every key (default `"erl:"`). */
  prefix?: string;
}

const ALGORITHMS: readonly StoreAlgorithm[] = ["slide", "fixed", "gcra"];

/** An express-rate-limit `Store` on a winlimit Limiter. One instance per rateLimit(). */
export class WinlimitStore {
  readonly limiter: Limiter;
  readonly algorithm: StoreAlgorithm;
  readonly prefix: string;
  /** Keys are kept in Redis: instances of the app share them. */
  readonly localKeys = false;
  private windowMs: number | undefined;
  private limit: number | undefined;
  private initError: Error | undefined;
  private pending: PendingRejections | undefined;

  constructor(options: WinlimitStoreOptions) {
    if (options === null || typeof options !== "object") throw new TypeError("new WinlimitStore({ limiter }): the options object is missing");
    const { limiter } = options;
    if (limiter === null || typeof limiter !== "object" || typeof limiter.slide !== "function") {
      throw new TypeError("new WinlimitStore({ limiter }): limiter must be a winlimit Limiter");
    }
    const algorithm = options.algorithm ?? "slide";
    if (!ALGORITHMS.includes(algorithm)) {
      throw new RangeError(`algorithm must be one of ${ALGORITHMS.join(", ")}, not ${JSON.stringify(algorithm)}`);
    }
    if (options.prefix !== undefined && typeof options.prefix !== "string") throw new TypeError(`prefix must be a string, not ${typeof options.prefix}`);
    this.limiter = limiter;
    this.algorithm = algorithm;
    this.prefix = options.prefix ?? "erl:";
    this.windowMs = options.windowMs === undefined ? undefined : positiveInteger("windowMs", options.windowMs);
    this.limit = options.limit === undefined ? undefined : positiveInteger("limit", options.limit);
  }

  /** Takes the window and the limit from express-rate-limit's options where the store was
   * given none. express-rate-limit logs what this throws and goes on, so the error is kept
   * and every later call rejects with it too. */
  init(options: RateLimitOptionsSeen): void {
    try {
      this.windowMs = agreed("windowMs", this.windowMs, options.windowMs);
      if (typeof options.limit === "function" && this.limit === undefined) {
        throw new TypeError(
          "express-rate-limit's limit is a function, which it never passes to its store: give WinlimitStore a limit of its own (new WinlimitStore({ limiter, limit }))",
        );
      }
      this.limit = agreed("limit", this.limit, typeof options.limit === "function" ? undefined : options.limit);
      // A 429 is a failed request: under skipFailedRequests its decrement follows.
      this.pending = options.skipFailedRequests === true ? new PendingRejections() : undefined;
    } catch (error) {
      this.initError = error as Error;
      throw error;
    }
  }

  /** Counts one request for `key`. */
  async increment(key: string): Promise<ClientRateLimitInfo> {
    const [windowMs, limit] = this.settings();
    const now = Date.now();
    const decision = await this.limiter[this.algorithm](this.prefix + key, windowMs, limit);
    const info = infoOf(decision, now, windowMs);
    if (!decision.allowed) this.pending?.add(key, info.resetTime!.getTime());
    return info;
  }

  /** Gives one unit back (REFUND), unless the request being undone was rejected (it took
   * none). */
  async decrement(key: string): Promise<void> {
    const [windowMs, limit] = this.settings();
    if (this.pending?.take(key, Date.now())) return;
    await this.limiter[this.algorithm](this.prefix + key, windowMs, limit, { refund: 1 });
  }

  /** What `key` holds now, without counting anything; undefined when nothing counts. */
  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const [windowMs, limit] = this.settings();
    const now = Date.now();
    const decision = await this.limiter[this.algorithm](this.prefix + key, windowMs, limit, { peek: true });
    const totalHits = Math.max(0, decision.limit - decision.remaining);
    if (totalHits === 0) return undefined;
    return { totalHits, resetTime: new Date(now + decision.resetAfterMs) };
  }

  /** Forgets `key`: its next request starts afresh. */
  async resetKey(key: string): Promise<void> {
    await this.limiter.reset(this.prefix + key);
  }

  private settings(): [number, number] {
    if (this.initError !== undefined) throw this.initError;
    if (this.windowMs === undefined || this.limit === undefined) {
      throw new TypeError("WinlimitStore has no window or limit: give it windowMs and limit, or pass it to express-rate-limit, whose init gives them");
    }
    return [this.windowMs, this.limit];
  }
}

/** express-rate-limit's record of a decision: `resetTime` is when the same request is
 * accepted (rejected: `retryAfterMs`; -1, never: a window from now) or when nothing counts
 * any more (accepted: `resetAfterMs`). */
export function infoOf(decision: Decision, now: number, windowMs: number): ClientRateLimitInfo {
  const inWindow = Math.max(0, decision.limit - decision.remaining);
  if (decision.allowed) return { totalHits: Math.max(1, inWindow), resetTime: new Date(now + decision.resetAfterMs) };
  const waitMs = decision.retryAfterMs >= 0 ? decision.retryAfterMs : windowMs;
  return { totalHits: Math.max(inWindow, decision.limit) + 1, resetTime: new Date(now + waitMs) };
}

function positiveInteger(what: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${what} must be a positive integer, not ${typeof value === "number" ? value : JSON.stringify(value)}`);
  }
  return value;
}

/** The store's own value, or express-rate-limit's when the store has none; both given and
 * different is an error, as the middleware's 429 and headers would disagree with the store. */
function agreed(what: string, own: number | undefined, theirs: unknown): number | undefined {
  if (theirs === undefined) return own;
  const value = positiveInteger(`express-rate-limit's ${what}`, theirs);
  if (own !== undefined && own !== value) {
    throw new RangeError(`WinlimitStore's ${what} (${own}) and express-rate-limit's (${value}) differ: the middleware would answer 429 on its own count; give the same value to both, or to express-rate-limit only`);
  }
  return value;
}
