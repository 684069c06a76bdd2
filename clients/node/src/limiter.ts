/** The limiter: one method per winlimit command, each resolving to a Decision. */

import { DEFAULT_CACHE_SIZE, RejectionCache } from "./cache";
import { decided, MetricsSink } from "./counting";
import * as commands from "./commands";
import type { Call, Key } from "./commands";
import { Decision } from "./decision";
import { RedisCallError, redisCallError } from "./errors";
import { Channel, RedisClient, channel } from "./client";
import { BackendChoice, Backends, checkBackend } from "./backend";
import { CommandMethods } from "./methods";

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
export class Limiter extends CommandMethods {
  /** The default policy name. */
  readonly name: string;
  private readonly channel: Channel;
  private readonly backends: Backends;
  private readonly cache: RejectionCache | undefined;
  private readonly metrics: MetricsSink | undefined;
  protected readonly blockMs: number | undefined;

  constructor(client: RedisClient, options: LimiterOptions = {}) {
    super();
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

  protected async once(call: Call): Promise<Decision> {
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
