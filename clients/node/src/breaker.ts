/**
 * The circuit breaker of a limiter (one per server, per cluster node): after `failures`
 * consecutive failed calls it stops sending for `openMs`, then lets exactly one probe call
 * through; the probe's failure opens it again for twice as long (at most `maxOpenMs`), any
 * answer closes it. Pure: the limiter asks `admit` before a call and `settle` after, on a
 * clock it is given. The shared cases are clients/spec/breaker.json.
 */

import { RedisCallError } from "./errors";

/** The limiter's breaker options. */
export interface BreakerOptions {
  /** Consecutive failed calls that open the breaker (default 3). */
  failures?: number;
  /** How long an open breaker sends nothing, in ms (default 1,000); doubled on each failed probe. */
  openMs?: number;
  /** The longest open period, in ms (default 30,000, or openMs when that is longer). */
  maxOpenMs?: number;
  /** false: every call goes to Redis, whatever fails (default true). */
  breaker?: boolean;
}

export type BreakerState = "closed" | "half_open" | "open";
export type Cause = "failures" | "open_elapsed" | "probe_failed" | "probe_succeeded";
export interface Transition {
  readonly to: BreakerState;
  readonly cause: Cause;
}

/** What to do with one call: send it, send it as the probe, or answer it without sending. */
export interface Ticket {
  readonly action: "send" | "probe" | "open";
}

export const DEFAULT_FAILURES = 3;
export const DEFAULT_OPEN_MS = 1000;
export const DEFAULT_MAX_OPEN_MS = 30_000;

/** The numeric value of a state in winlimit_breaker_state. */
export const STATE_VALUE: Readonly<Record<BreakerState, number>> = { closed: 0, half_open: 1, open: 2 };

const SEND: Ticket = { action: "send" };
const OPEN: Ticket = { action: "open" };

export class Breaker {
  readonly enabled: boolean;
  readonly failures: number;
  readonly openMs: number;
  readonly maxOpenMs: number;
  private current: BreakerState = "closed";
  private failed = 0;
  private period: number;
  private until = 0;
  private probe: Ticket | undefined;

  constructor(
    options: BreakerOptions = {},
    private readonly clock: () => number = () => performance.now(),
  ) {
    const o = checkBreakerOptions(options);
    this.enabled = o.breaker;
    this.failures = o.failures;
    this.openMs = o.openMs;
    this.maxOpenMs = o.maxOpenMs;
    this.period = o.openMs;
  }

  get state(): BreakerState {
    return this.current;
  }

  /** When the open period ends (on the breaker's clock); meaningful while open. */
  get openUntilMs(): number {
    return this.until;
  }

  /** The length of the open period in force (or the next one, while closed). */
  get openPeriodMs(): number {
    return this.period;
  }

  /** Whether a call arriving now is sent, is the probe, or is answered as open; the
   * transition to half-open when it is the probe. */
  admit(): [Ticket, Transition | undefined] {
    if (!this.enabled || this.current === "closed") return [SEND, undefined];
    if (this.current === "half_open" || this.clock() < this.until) return [OPEN, undefined];
    this.current = "half_open";
    this.probe = { action: "probe" };
    return [this.probe, { to: "half_open", cause: "open_elapsed" }];
  }

  /** The end of the call `ticket` admitted: `failed` when it counts as a failure (see
   * countsAsFailure). Returns the transition it made, if any. */
  settle(ticket: Ticket, failed: boolean): Transition | undefined {
    if (!this.enabled || ticket.action === "open") return undefined;
    if (this.current !== "closed") return ticket === this.probe ? this.probed(failed) : undefined;
    if (!failed) {
      this.failed = 0;
      return undefined;
    }
    if (++this.failed < this.failures) return undefined;
    this.period = this.openMs;
    this.open();
    return { to: "open", cause: "failures" };
  }

  private probed(failed: boolean): Transition {
    this.probe = undefined;
    if (failed) {
      this.period = Math.min(this.period * 2, this.maxOpenMs);
      this.open();
      return { to: "open", cause: "probe_failed" };
    }
    this.current = "closed";
    this.failed = 0;
    this.period = this.openMs;
    return { to: "closed", cause: "probe_succeeded" };
  }

  private open(): void {
    this.current = "open";
    this.until = this.clock() + this.period;
  }
}

/** The options with their defaults, or a TypeError/RangeError naming the bad one. */
export function checkBreakerOptions(options: BreakerOptions): Required<BreakerOptions> {
  const breaker = options.breaker ?? true;
  if (typeof breaker !== "boolean") throw new TypeError(`breaker must be a boolean, not ${typeof breaker}`);
  const failures = positive("failures", options.failures ?? DEFAULT_FAILURES);
  const openMs = positive("openMs", options.openMs ?? DEFAULT_OPEN_MS);
  const maxOpenMs = positive("maxOpenMs", options.maxOpenMs ?? Math.max(DEFAULT_MAX_OPEN_MS, openMs));
  if (maxOpenMs < openMs) throw new RangeError(`maxOpenMs (${maxOpenMs}) must be at least openMs (${openMs})`);
  return { breaker, failures, openMs, maxOpenMs };
}

function positive(name: string, value: unknown): number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number, not ${typeof value}`);
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, not ${value}`);
  return value;
}

/** The server error replies that say the server cannot answer now (not the caller's fault). */
const UNAVAILABLE = new Set(["LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "READONLY"]);
/** The error classes of the Redis clients for a server's error reply (node-redis, ioredis). */
const REPLY_CLASSES = new Set(["ErrorReply", "ReplyError"]);

/** Whether the Redis client's error counts as a failure of Redis: anything but a server's
 * error reply (a connection error, a closed client, a timeout), or a reply saying the server
 * cannot answer now (LOADING, BUSY, MASTERDOWN, TRYAGAIN, CLUSTERDOWN, READONLY). WRONGTYPE,
 * ERR and the like are the caller's: the server is up. */
export function countsAsFailure(error: unknown): boolean {
  // The limiter's own wrapping (scripts and functions backends): the client's error is the cause.
  if (error instanceof RedisCallError && error.cause !== undefined) return countsAsFailure(error.cause);
  if (!isReply(error)) return true;
  const text = error instanceof Error ? error.message : String(error);
  return UNAVAILABLE.has(text.split(" ", 1)[0] ?? "");
}

function isReply(error: unknown): boolean {
  for (let proto: unknown = Object.getPrototypeOf(error); proto !== null && proto !== undefined; proto = Object.getPrototypeOf(proto)) {
    const ctor = (proto as { constructor?: { name?: string } }).constructor;
    if (ctor?.name !== undefined && REPLY_CLASSES.has(ctor.name)) return true;
  }
  return false;
}
