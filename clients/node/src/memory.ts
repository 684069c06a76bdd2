/**
 * An in-process limiter: the same methods and decisions as `Limiter`, kept in this process's
 * memory on its clock, with no Redis. The middlewares take one as `fallback` for when Redis
 * fails. Mirrors the Python client's `winlimit.memory.Limiter`.
 *
 *     const fallback = new MemoryLimiter();
 *     (await fallback.slide("sms:+4915112345678", 3_600_000, 3)).allowed
 *
 * It counts per process: with N processes, each allows the whole limit. Its decisions are
 * the module's for the same calls at the same times (clients/spec/decisions.json, generated
 * from the module's core, is run on it); `decision.backend` is `"memory"`.
 *
 * Memory is bounded: a key is dropped once nothing in it counts any more (its windows have
 * passed, its bucket is full again), and at most `maxKeys` keys are kept, the least recently
 * used dropped first.
 */

import { DEFAULT_CACHE_SIZE, RejectionCache } from "./cache";
import * as commands from "./commands";
import { decided, type MetricsSink } from "./counting";
import type { Call, Key } from "./commands";
import { Decision } from "./decision";
import { RedisCallError } from "./errors";
import { CommandMethods } from "./methods";
import { Buckets, Counter, Log, type Reply, Tat } from "./memory-decide";
import * as parse from "./memory-parse";

export const DEFAULT_MAX_KEYS = 100_000;

type State = Log | Buckets | Counter | Tat;

/** Options of the MemoryLimiter. */
export interface MemoryLimiterOptions {
  /** Names the policy in the header fields, as Limiter's `name`. */
  name?: string;
  /** At most this many keys are kept, the least recently used dropped first (default 100,000). */
  maxKeys?: number;
  /** The time in ms since the epoch (default `Date.now`; tests pass their own). */
  clock?: () => number;
  /** As Limiter's. */
  cacheRejections?: boolean;
  cacheSize?: number;
  /** The exact log's largest limit, as the module's winlimit.max-limit (default 10,000). */
  maxLimit?: number;
  /** Counts every call's decision (as outcome "fallback"): a `Metrics` from winlimit/metrics. */
  metrics?: MetricsSink;
  /** As Limiter's: the BLOCK of every recording call that gives no `blockMs` of its own
   * (not of peeks, nor of refunds). */
  blockMs?: number;
}

/** Limiter's methods (`slide`, `fixed`, `gcra`, `reset`) over this process's memory. */
export class MemoryLimiter extends CommandMethods {
  readonly name: string;
  readonly maxKeys: number;
  readonly clock: () => number;
  private readonly maxLimit: number;
  private readonly cache: RejectionCache | undefined;
  /** Keys in use order, least recently used first (a Map keeps insertion order). */
  private readonly keys = new Map<string, State>();
  private callsSinceSweep = 0;
  private readonly metrics: MetricsSink | undefined;
  protected readonly blockMs: number | undefined;

  constructor(options: MemoryLimiterOptions = {}) {
    super();
    this.name = commands.checkName(options.name ?? commands.DEFAULT_NAME);
    this.maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    if (!Number.isSafeInteger(this.maxKeys) || this.maxKeys < 1) throw new RangeError(`maxKeys must be a positive integer, not ${String(options.maxKeys)}`);
    this.clock = options.clock ?? Date.now;
    this.maxLimit = options.maxLimit ?? parse.DEFAULT_MAX_LIMIT;
    this.metrics = options.metrics;
    if (options.blockMs !== undefined) commands.integer("blockMs", options.blockMs);
    this.blockMs = options.blockMs;
    this.cache = options.cacheRejections ? new RejectionCache(options.cacheSize ?? DEFAULT_CACHE_SIZE) : undefined;
  }

  /** How many keys are held now. */
  get size(): number {
    return this.keys.size;
  }

  /** Forgets the key and its cached rejections; resolves to true if a key was held. */
  async reset(key: Key): Promise<boolean> {
    const removed = this.keys.delete(String(key));
    this.cache?.forget(key);
    return removed;
  }

  protected async once(call: Call): Promise<Decision> {
    const cached = this.cache?.answer(call);
    if (cached !== undefined) return decided(this.metrics, cached);
    const started = performance.now();
    const reply = this.executeCommand(call.args.map(String));
    const decision = Decision.fromReply(reply, call.policies, "memory");
    this.cache?.remember(call, decision);
    return decided(this.metrics, decision, started);
  }

  /** Answers `call` (a Limiter's, whose breaker is open or whose Redis failed) here. */
  decideCall(call: Call): Promise<Decision> {
    return this.once(call);
  }

  /** Answers one WINLIMIT command line (`["WINLIMIT.SLIDE", key, "1000", "3"]`) at the
   * clock's time, as the module would: the five integers, or a RedisCallError with the
   * module's text. Every method goes through here. */
  executeCommand(line: readonly string[]): Reply {
    const [command = "", key = "", ...words] = line;
    const upper = command.toUpperCase();
    const peek = upper.endsWith("_RO");
    const base = peek ? upper.slice(0, -3) : upper;
    const spec = commands.COMMANDS.get(base);
    if (spec === undefined) throw new RedisCallError(`ERR unknown command '${base}' for the memory limiter`);
    const now = this.clock();
    const state = this.state(key, now, spec, words);
    const reply = decide(state, now, spec, words, peek, this.maxLimit);
    if (state.expiresAt !== undefined && !this.keys.has(key)) this.keys.set(key, state);
    this.bound(now);
    return reply;
  }

  /** The key's live state (moved to most recently used), or a new empty one of the
   * command's kind, kept only once it records something. */
  private state(key: string, now: number, spec: commands.CommandSpec, words: string[]): State {
    let state = this.keys.get(key);
    if (state !== undefined && state.expiresAt !== undefined && state.expiresAt <= now) {
      this.keys.delete(key);
      state = undefined;
    }
    const fresh = newState(spec, words);
    if (state === undefined) return fresh;
    if (state.kind !== fresh.kind) throw new RedisCallError("WRONGTYPE Operation against a key holding the wrong kind of value");
    this.keys.delete(key);
    this.keys.set(key, state);
    return state;
  }

  /** At most maxKeys keys, least recently used out first; and once per as many calls as keys
   * held, a sweep drops every key whose windows have passed (one step per call, amortised). */
  private bound(now: number): void {
    while (this.keys.size > this.maxKeys) this.keys.delete(this.keys.keys().next().value as string);
    this.callsSinceSweep += 1;
    if (this.callsSinceSweep < this.keys.size) return;
    this.callsSinceSweep = 0;
    for (const [key, state] of this.keys) {
      if (state.expiresAt !== undefined && state.expiresAt <= now) this.keys.delete(key);
    }
  }
}

/** The state's answer to the line, REFUND and BLOCK refused on a `_RO` command. The state
 * kind's parser reads the line; the command then refuses what its kind's other commands take
 * and it does not, as the module's parser for it does. */
function decide(state: State, now: number, spec: commands.CommandSpec, words: string[], peek: boolean, maxLimit: number): Reply {
  if (state instanceof Counter) {
    const request = parse.fixed(words);
    refuseForeignShape(spec, words);
    parse.checkMode(request.extras, peek);
    return state.decide(now, request, peek);
  }
  if (state instanceof Tat) {
    const request = parse.gcra(words);
    refuseForeignShape(spec, words);
    parse.checkMode(request.extras, peek);
    return state.decide(now, request, peek);
  }
  const request = parse.slide(words, maxLimit);
  refuseForeignShape(spec, words);
  parse.checkMode(request.extras, peek);
  return state.decide(now, request, peek);
}

/** A shape option another command of the same state kind takes and this one does not (a
 * counter without ALIGN) is an unknown option here. Option values are integers, so a word
 * that is the option's keyword is the option. */
function refuseForeignShape(spec: commands.CommandSpec, words: string[]): void {
  const foreign = new Set<string>();
  for (const other of commands.COMMANDS.values()) {
    if (other.state !== spec.state) continue;
    for (const option of other.shape) if (!spec.shape.includes(option)) foreign.add(option.toUpperCase());
  }
  const word = words.find((w) => foreign.has(w.toUpperCase()));
  if (word !== undefined) throw parse.unknownOption(word);
}

/** An empty state of the command's kind; a log with BUCKET is a ring of buckets. */
function newState(spec: commands.CommandSpec, words: string[]): State {
  if (spec.state === "log") {
    const at = words.findIndex((w, i) => w.toUpperCase() === "BUCKET" && i + 1 < words.length);
    const bucket = at < 0 ? undefined : parse.parseInt64(words[at + 1]);
    return bucket === undefined ? new Log() : new Buckets(bucket);
  }
  return spec.state === "counter" ? new Counter() : new Tat();
}
