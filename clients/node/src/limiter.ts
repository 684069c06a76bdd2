/** The limiter: one method per winlimit command, each resolving to a Decision. */

import { DEFAULT_CACHE_SIZE, RejectionCache } from "./cache";
import { decided, MetricsSink } from "./counting";
import * as commands from "./commands";
import type { Call, FixedOptions, GcraOptions, Key, Pair, SlideOptions } from "./commands";
import { Decision } from "./decision";
import { RedisCallError, redisCallError } from "./errors";
import { Channel, RedisClient, channel } from "./client";
import { BackendChoice, Backends, checkBackend } from "./backend";

/** Options of the Limiter. */
export interface LimiterOptions {
  /** Names the policy in the header fields (default `"winlimit"`; with several windows,
   * `"winlimit-60s"` and so on). Every method takes `name` to override it for one call. */
  name?: string;
  /** Answer a call locally while the same command line's last rejection is in force (its
   * `retryAfterMs`, on this process's monotonic clock). Default false. */
  cacheRejections?: boolean;
  /** How many rejections the cache holds at most, the oldest dropped first (default 10,000). */
  cacheSize?: number;
  /** Which edition of winlimit answers: `"module"` (the WINLIMIT commands), `"functions"`
   * (the Functions library, by FCALL, loaded where it is missing), `"scripts"` (the same code
   * by EVALSHA, for Redis 6), or `"auto"` (the default): the module where the server has it,
   * else the library where the server has Functions, else the scripts, decided once per
   * server (per node of a cluster). `decision.backend` says which answered. */
  backend?: BackendChoice;
  /** Counts every call's decision: a `Metrics` from winlimit/metrics. */
  metrics?: MetricsSink;
  /** The BLOCK of every recording call that gives no `blockMs` of its own (not of peeks,
   * nor of refunds, where the server refuses it). */
  blockMs?: number;
}

/**
 * One method per winlimit command, each resolving to a `Decision`.
 *
 * `client` is a node-redis client or cluster (v4 or later), or an ioredis Redis or Cluster
 * (v5 or later). Every method is async: bad argument types reject with TypeError, values the
 * client can judge itself with RangeError, both before anything is sent; a failed Redis call
 * with RedisCallError (ModuleNotLoaded when the server lacks the module), whose message is
 * the client's or the server's own and whose `cause` is the client's error.
 */
export class Limiter {
  /** The default policy name. */
  readonly name: string;
  private readonly channel: Channel;
  private readonly backends: Backends;
  private readonly cache: RejectionCache | undefined;
  private readonly metrics: MetricsSink | undefined;
  private readonly blockMs: number | undefined;

  constructor(client: RedisClient, options: LimiterOptions = {}) {
    this.channel = channel(client);
    this.backends = new Backends(checkBackend(options.backend ?? "auto"), this.channel, client);
    this.name = commands.checkName(options.name ?? commands.DEFAULT_NAME);
    if (options.cacheRejections !== undefined && typeof options.cacheRejections !== "boolean") {
      throw new TypeError(`cacheRejections must be a boolean, not ${typeof options.cacheRejections}`);
    }
    const size = options.cacheSize ?? DEFAULT_CACHE_SIZE;
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`cacheSize must be a positive integer, not ${String(size)}`);
    this.cache = options.cacheRejections ? new RejectionCache(size) : undefined;
    this.metrics = options.metrics;
    if (options.blockMs !== undefined) commands.integer("blockMs", options.blockMs);
    this.blockMs = options.blockMs;
  }

  /** WINLIMIT.SLIDE: `slide(key, 60_000, 100)`, or several windows at once:
   * `slide(key, [[1_000, 10], [60_000, 100]])`. `bucket: ms` counts per bucket (BUCKET);
   * `peek: true` asks WINLIMIT.SLIDE_RO, which records nothing. */
  slide(key: Key, windowMs: number, limit: number, options?: SlideOptions): Promise<Decision>;
  slide(key: Key, windows: readonly Pair[], options?: SlideOptions): Promise<Decision>;
  async slide(key: Key, windows: number | readonly Pair[], ...rest: unknown[]): Promise<Decision> {
    const at = typeof windows === "number" ? 1 : 0; // where the options object is
    const args = [...rest];
    args[at] = withBlock(this.blockMs, args[at]);
    return this.run(commands.slide(this.name, key, windows, ...args));
  }

  /** WINLIMIT.FIXED; `align: true` starts windows at multiples of windowMs since the epoch
   * (ALIGN); `peek: true` asks WINLIMIT.FIXED_RO. */
  async fixed(key: Key, windowMs: number, limit: number, options?: FixedOptions): Promise<Decision> {
    return this.run(commands.fixed(this.name, key, windowMs, limit, withBlock(this.blockMs, options)));
  }

  /** WINLIMIT.GCRA: `limit` units per `periodMs`, at most `burst` at once (default `limit`);
   * the decision's `limit` is the bucket's capacity. `peek: true` asks WINLIMIT.GCRA_RO. */
  async gcra(key: Key, periodMs: number, limit: number, options?: GcraOptions): Promise<Decision> {
    return this.run(commands.gcra(this.name, key, periodMs, limit, withBlock(this.blockMs, options)));
  }

  /** Deletes the key, whatever its method, and forgets every cached rejection for it, so
   * its next call starts afresh ("unblock this user now"); resolves to true if a key was
   * removed. `key` is the whole key, as the methods were given it (a middleware's prefix too). */
  async reset(key: Key): Promise<boolean> {
    if (typeof key !== "string" && !Buffer.isBuffer(key)) throw new TypeError(`the key must be a string or a Buffer, not ${typeof key}`);
    let removed: unknown;
    try {
      removed = await this.channel.send(key, false, ["DEL", key]);
    } catch (error) {
      throw redisCallError(error);
    }
    this.cache?.forget(key);
    return Number(removed) > 0;
  }

  private async run(call: Call): Promise<Decision> {
    return runWaiting(call, (c) => this.once(c));
  }

  private async once(call: Call): Promise<Decision> {
    const cached = this.cache?.answer(call);
    if (cached !== undefined) return decided(this.metrics, cached);
    const started = performance.now();
    let answer: Awaited<ReturnType<Backends["answer"]>>;
    try {
      answer = await this.backends.answer(call);
    } catch (error) {
      this.metrics?.failed(call.policies[0]?.name ?? this.name);
      throw error instanceof RedisCallError ? error : redisCallError(error);
    }
    const decision = Decision.fromReply(answer[0], call.policies, answer[1]);
    this.cache?.remember(call, decision);
    return decided(this.metrics, decision, started);
  }
}

/** A call's options with the limiter's `blockMs` for a recording call that gives none;
 * anything else (a peek, a refund, not an object: the builder refuses it) as given. */
export function withBlock(blockMs: number | undefined, options: unknown): unknown {
  if (blockMs === undefined || options === null || (options !== undefined && typeof options !== "object")) return options;
  const o = (options ?? {}) as { blockMs?: unknown; peek?: unknown; refund?: unknown };
  if (o.blockMs !== undefined || o.peek === true || o.refund !== undefined) return options;
  return { ...o, blockMs };
}

/** Answers `call` by `once`; with `waitMs`, sleeps `retryAfterMs` and asks again while
 * rejected, until accepted or until the next sleep would end after the deadline. */
export async function runWaiting(call: Call, once: (call: Call) => Promise<Decision>): Promise<Decision> {
  const waitMs = checkWait(call.options.waitMs, call.readonly, call.refund === true);
  if (waitMs === undefined) return once(call);
  const deadline = performance.now() + waitMs;
  let waited = 0;
  for (;;) {
    const decision = await once(call);
    // -1: the request can never fit, so waiting would not help.
    if (decision.allowed || decision.retryAfterMs <= 0 || performance.now() + decision.retryAfterMs > deadline) {
      return new Decision({ ...decision, waitedMs: Math.round(waited) });
    }
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, decision.retryAfterMs));
    waited += performance.now() - start;
  }
}

function checkWait(waitMs: unknown, peek: boolean, refund: boolean): number | undefined {
  if (waitMs === undefined) return undefined;
  if (typeof waitMs !== "number") throw new TypeError(`waitMs must be a number of ms, not ${typeof waitMs}`);
  if (!(waitMs > 0) || !Number.isFinite(waitMs)) throw new RangeError(`waitMs must be a positive number of ms, not ${waitMs}`);
  if (peek) throw new TypeError("peek records nothing, so waiting for it to be accepted makes no sense: drop waitMs or peek");
  if (refund) throw new TypeError("refund takes nothing, so waiting for it to be accepted makes no sense: drop waitMs or refund");
  return waitMs;
}
