/** The limiter: one method per winlimit command, each resolving to a Decision. */

import { DEFAULT_CACHE_SIZE, RejectionCache } from "./cache";
import { decided, MetricsSink } from "./counting";
import * as commands from "./commands";
import type { Call, Key } from "./commands";
import { Decision } from "./decision";
import { CallTimedOut, RedisCallError, redisCallError } from "./errors";
import { Channel, RedisClient, channel } from "./client";
import { BackendChoice, Backends, checkBackend } from "./backend";
import { CommandMethods } from "./methods";
import { type BreakerOptions, countsAsFailure } from "./breaker";
import { type BreakerLogger, Breakers } from "./breakers";
import type { MemoryLimiter } from "./memory";

/** What `limiter.breaker.of(key)` tells of a breaker. */
export interface BreakerStatus {
  readonly state: "closed" | "half_open" | "open";
  readonly openUntilMs: number;
  readonly openPeriodMs: number;
}

/** The default of the limiter's `timeoutMs`. */
export const DEFAULT_CALL_TIMEOUT_MS = 1000;

/** Options of the Limiter. */
export interface LimiterOptions extends BreakerOptions {
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
  /** How long a call waits for Redis before it counts as failed (default 1,000 ms; node-redis
   * itself waits forever); `null` waits as long as the Redis client does. */
  timeoutMs?: number | null;
  /** A MemoryLimiter that decides the very call (the same cost, refund and block) while the
   * circuit breaker is open or when a call fails. Without one, such a call rejects with a
   * RedisCallError: BreakerOpen, at once and without sending, while the breaker is open. */
  fallback?: MemoryLimiter;
  /** Where the breaker's lines go: a warning when it opens, an info line when it closes
   * (default console.warn and console.info). */
  logger?: BreakerLogger;
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
  private readonly timeoutMs: number | null;
  private readonly fallback: MemoryLimiter | undefined;
  private readonly breakers: Breakers;
  /** The circuit breaker: `enabled` (the `breaker` option, default true), and `of(key)`, the
   * breaker of the server holding `key` (its cluster node): its `state` ("closed",
   * "half_open", "open"), while open when its period ends (`openUntilMs`, on
   * performance.now()'s clock), and the period's length (`openPeriodMs`). */
  readonly breaker: { readonly enabled: boolean; of(key: Key): BreakerStatus };

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
    this.timeoutMs = checkTimeout(options.timeoutMs);
    this.fallback = options.fallback;
    const logger = options.logger ?? ((message, level) => console[level](message));
    this.breakers = new Breakers(options, this.name, this.fallback !== undefined, logger, this.metrics);
    const breakers = this.breakers;
    const nodeOf = (key: Key) => this.channel.nodeOf(key);
    this.breaker = { enabled: breakers.enabled, of: (key) => breakers.of(nodeOf(key)) };
  }

  /** Deletes the key, whatever its method, and forgets every cached rejection for it, so
   * its next call starts afresh ("unblock this user now"); resolves to true if a key was
   * removed. `key` is the whole key, as the methods were given it (a middleware's prefix too). */
  async reset(key: Key): Promise<boolean> {
    if (typeof key !== "string" && !Buffer.isBuffer(key)) throw new TypeError(`the key must be a string or a Buffer, not ${typeof key}`);
    // The fallback's state too: "unblock this user now" holds in an outage as well.
    const inMemory = (await this.fallback?.reset(key)) ?? false;
    this.cache?.forget(key);
    const removed = await this.guarded(key, () => this.channel.send(key, false, ["DEL", key]));
    if (removed instanceof RedisCallError) {
      if (this.fallback !== undefined && countsAsFailure(removed)) return inMemory;
      throw removed;
    }
    return Number(removed) > 0 || inMemory;
  }

  protected async once(call: Call): Promise<Decision> {
    const cached = this.cache?.answer(call);
    if (cached !== undefined) return decided(this.metrics, cached);
    const started = performance.now();
    const answer = await this.guarded(call.key, () => this.backends.answer(call));
    if (answer instanceof RedisCallError) {
      if (this.fallback === undefined || !countsAsFailure(answer)) {
        this.metrics?.failed(call.policies[0]?.name ?? this.name);
        throw answer;
      }
      const asked = performance.now();
      return decided(this.metrics, await this.fallback.decideCall(call), asked);
    }
    const decision = Decision.fromReply(answer[0], call.policies, answer[1]);
    this.cache?.remember(call, decision);
    return decided(this.metrics, decision, started);
  }

  /** `send` through the breaker of the key's server, within the call timeout: its result,
   * or the RedisCallError it failed with (BreakerOpen, without sending, while open). */
  private async guarded<T>(key: Key, send: () => Promise<T>): Promise<T | RedisCallError> {
    const node = this.channel.nodeOf(key);
    const ticket = this.breakers.admit(node);
    if (ticket.action === "open") return this.breakers.openError(node);
    try {
      const result = await this.withinTimeout(send());
      this.breakers.settle(node, ticket, undefined);
      return result;
    } catch (error) {
      const failure = error instanceof RedisCallError ? error : redisCallError(error);
      this.breakers.settle(node, ticket, countsAsFailure(failure) ? failure : undefined);
      return failure;
    }
  }

  private withinTimeout<T>(work: Promise<T>): Promise<T> {
    const timeoutMs = this.timeoutMs;
    if (timeoutMs === null) return work;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CallTimedOut(timeoutMs)), timeoutMs);
    });
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  }
}

function checkTimeout(timeoutMs: unknown): number | null {
  if (timeoutMs === undefined) return DEFAULT_CALL_TIMEOUT_MS;
  if (timeoutMs === null) return null;
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
    throw new RangeError(`timeoutMs must be a positive number of ms or null, not ${typeof timeoutMs === "number" ? timeoutMs : typeof timeoutMs}`);
  }
  return timeoutMs;
}
