/**
 * WINLIMIT command lines read as the module reads them, for the memory limiter: the same
 * grammar, bounds and error texts (src/core/parse.rs, slide.rs, fixed.rs, gcra.rs), checked
 * by clients/spec/decisions.json. Mirrors the Python client's `winlimit._memory_parse`.
 * Errors are RedisCallErrors with the module's text (`ERR ...`), as a Redis client reports it.
 */

import { RedisCallError } from "./errors";

/** The bound of window_ms, period_ms, the large limits and BURST. */
export const MAX = 1_000_000_000_000;
const MAX_WINDOWS = 8;
const MAX_BUCKETS_PER_WINDOW = 1000;
/** winlimit.max-limit's default: the exact log's largest limit. */
export const DEFAULT_MAX_LIMIT = 10_000;

export type Pairs = [windowMs: number, limit: number][];

/** `REFUND n` and `BLOCK ms`, shared by the recording commands (src/core/parse.rs). */
export interface Extras {
  refund?: number | undefined;
  blockMs?: number | undefined;
}

export interface SlideRequest {
  windows: Pairs; // shortest first
  cost: number;
  bucketMs: number | undefined;
  extras: Extras;
}

export interface FixedRequest {
  windowMs: number;
  limit: number;
  cost: number;
  align: boolean;
  extras: Extras;
}

export interface GcraRequest {
  periodMs: number;
  limit: number;
  burst: number;
  cost: number;
  extras: Extras;
}

export function error(text: string): RedisCallError {
  return new RedisCallError(`ERR ${text}`);
}

/** An integer as Redis writes it (no `+`, no leading zeros, no `-0`), within i64; a number
 * when it is safe, else a bigint (only ever out of every bound here). */
export function parseInt64(word: string): number | undefined {
  if (!/^-?(0|[1-9][0-9]*)$/.test(word) || word === "-0") return undefined;
  const value = BigInt(word);
  if (value < -(2n ** 63n) || value >= 2n ** 63n) return undefined;
  // Beyond 2^53 only the sign matters: every bound is at most 10^12.
  return Number.isSafeInteger(Number(word)) ? Number(word) : value > 0n ? Number.MAX_VALUE : -Number.MAX_VALUE;
}

function looksLikeInteger(word: string): boolean {
  return /^-?[0-9]+$/.test(word);
}

function ranged(word: string, name: string, low: number, high: number): number {
  const value = parseInt64(word);
  if (value === undefined || value < low || value > high) throw error(`${name} must be an integer between ${low} and ${high}`);
  return value;
}

function cost(word: string): number {
  const value = parseInt64(word);
  if (value === undefined || value < 1) throw error("COST must be a positive integer");
  return value;
}

/** An argument fit to echo in an error: control characters replaced, at most 64 shown. */
function printable(word: string): string {
  const chars = [...word];
  // eslint-disable-next-line no-control-regex
  const shown = chars.slice(0, 64).map((c) => (/[\u0000-\u001f\u007f-\u009f]/.test(c) ? "?" : c)).join("");
  return chars.length > 64 ? `${shown}...` : shown;
}

export function unknownOption(word: string): RedisCallError {
  return error(`unknown option '${printable(word)}'`);
}

function unexpected(word: string): RedisCallError {
  if (looksLikeInteger(word)) {
    return error(`'${printable(word)}' where an option was expected: window_ms limit pairs come before the options`);
  }
  return unknownOption(word);
}

/** Keyword options: case-insensitive, any order, each at most once; REFUND and BLOCK taken
 * as every recording command takes them. */
class Options {
  private readonly seen = new Set<string>();
  private readonly given: Extras = {};
  constructor(private readonly words: string[]) {}

  /** Takes `word` (and its value) when it is REFUND or BLOCK. */
  extra(word: string): boolean {
    const upper = word.toUpperCase();
    if (upper === "REFUND") {
      const value = parseInt64(this.value("REFUND"));
      if (value === undefined || value < 1) throw error("REFUND must be a positive integer");
      this.given.refund = value;
    } else if (upper === "BLOCK") {
      this.given.blockMs = ranged(this.value("BLOCK"), "BLOCK", 1, MAX);
    } else return false;
    return true;
  }

  /** The REFUND and BLOCK given, once their combinations are checked. */
  extras(): Extras {
    if (this.given.refund !== undefined && this.seen.has("COST")) throw error("REFUND cannot be combined with COST");
    if (this.given.refund !== undefined && this.given.blockMs !== undefined) throw error("REFUND cannot be combined with BLOCK");
    return this.given;
  }

  next(): string | undefined {
    return this.words.shift();
  }

  once(name: string): void {
    if (this.seen.has(name)) throw error(`option '${name}' given more than once`);
    this.seen.add(name);
  }

  value(name: string): string {
    this.once(name);
    const value = this.words.shift();
    if (value === undefined) throw error(`${name} needs a value`);
    return value;
  }
}

/** The `window_ms limit` pairs at the front, shortest first, and the options after. */
function windows(args: readonly string[], boundFor: (options: string[]) => number): [Pairs, string[]] {
  if (args.length < 2) throw error(`window_ms must be an integer between 1 and ${MAX}`);
  const raw: [number, string][] = [[ranged(args[0], "window_ms", 1, MAX), args[1]]];
  let rest = args.slice(2);
  const tooMany = () => error(`at most ${MAX_WINDOWS} window_ms limit pairs are allowed`);
  while (rest.length > 0) {
    if (raw.length > MAX_WINDOWS) throw tooMany();
    if (!looksLikeInteger(rest[0])) break;
    const window = ranged(rest[0], "window_ms", 1, MAX);
    if (rest.length < 2 || !looksLikeInteger(rest[1])) throw error(`window_ms ${window} has no limit after it`);
    raw.push([window, rest[1]]);
    rest = rest.slice(2);
  }
  if (raw.length > MAX_WINDOWS) throw tooMany();
  const bound = boundFor(rest);
  const pairs: Pairs = [];
  for (const [window, limit] of raw) {
    const value = ranged(limit, "limit", 0, bound);
    if (pairs.some(([w]) => w === window)) throw error(`window_ms ${window} given more than once`);
    pairs.push([window, value]);
  }
  return [pairs.sort((a, b) => a[0] - b[0]), rest];
}

/** `window_ms limit [window_ms limit ...] [COST n] [BUCKET ms]`. */
export function slide(args: readonly string[], maxLimit = DEFAULT_MAX_LIMIT): SlideRequest {
  const [pairs, rest] = windows(args, (o) => (o.some((w) => w.toUpperCase() === "BUCKET") ? MAX : maxLimit));
  const request: SlideRequest = { windows: pairs, cost: 1, bucketMs: undefined, extras: {} };
  const options = new Options(rest);
  for (let word = options.next(); word !== undefined; word = options.next()) {
    if (word.toUpperCase() === "COST") request.cost = cost(options.value("COST"));
    else if (options.extra(word)) continue;
    else if (word.toUpperCase() === "BUCKET") request.bucketMs = bucketMs(options.value("BUCKET"), pairs);
    else throw unexpected(word);
  }
  request.extras = options.extras();
  return request;
}

function bucketMs(word: string, pairs: Pairs): number {
  const smallest = pairs[0][0];
  const largest = pairs[pairs.length - 1][0];
  const value = parseInt64(word);
  if (value !== undefined && value >= 1 && value <= smallest && Math.ceil(largest / value) <= MAX_BUCKETS_PER_WINDOW) {
    return value;
  }
  const least = Math.ceil(largest / MAX_BUCKETS_PER_WINDOW);
  if (least > smallest) {
    throw error(
      `BUCKET cannot serve these windows: the largest needs buckets of at least ${least} ms, the smallest allows at most ${smallest} ms`,
    );
  }
  throw error(`BUCKET must be an integer between ${least} and ${smallest}`);
}

/** `window_ms limit [COST n] [ALIGN]`. */
export function fixed(args: readonly string[]): FixedRequest {
  const [pairs, rest] = windows(args, () => MAX);
  if (pairs.length > 1) throw error("WINLIMIT.FIXED takes one window_ms limit pair");
  const request: FixedRequest = { windowMs: pairs[0][0], limit: pairs[0][1], cost: 1, align: false, extras: {} };
  const options = new Options(rest);
  for (let word = options.next(); word !== undefined; word = options.next()) {
    if (word.toUpperCase() === "COST") request.cost = cost(options.value("COST"));
    else if (options.extra(word)) continue;
    else if (word.toUpperCase() === "ALIGN") {
      options.once("ALIGN");
      request.align = true;
    } else throw unexpected(word);
  }
  request.extras = options.extras();
  return request;
}

/** `period_ms limit [BURST n] [COST n]`. */
export function gcra(args: readonly string[]): GcraRequest {
  if (args.length < 2) throw error(`period_ms must be an integer between 1 and ${MAX}`);
  const periodMs = ranged(args[0], "period_ms", 1, MAX);
  const limit = ranged(args[1], "limit", 1, MAX);
  let burstWord: string | undefined;
  let units = 1;
  const options = new Options(args.slice(2));
  for (let word = options.next(); word !== undefined; word = options.next()) {
    if (word.toUpperCase() === "BURST") burstWord = options.value("BURST");
    else if (word.toUpperCase() === "COST") units = cost(options.value("COST"));
    else if (!options.extra(word)) throw unknownOption(word);
  }
  const extras = options.extras();
  // A full refill (burst * period_ms / limit) must fit in 10^12 ms.
  const maxBurst = Number((BigInt(MAX) * BigInt(limit)) / BigInt(periodMs) < BigInt(MAX) ? (BigInt(MAX) * BigInt(limit)) / BigInt(periodMs) : BigInt(MAX));
  const burst = burstWord === undefined ? Math.min(limit, maxBurst) : ranged(burstWord, "BURST", 1, maxBurst);
  return { periodMs, limit, burst, cost: units, extras };
}

/** REFUND and BLOCK are refused on the `_RO` commands, which write nothing. */
export function checkMode(extras: Extras, peek: boolean): void {
  for (const [name, given] of [["REFUND", extras.refund !== undefined], ["BLOCK", extras.blockMs !== undefined]] as const) {
    if (given && peek) throw error(`${name} is an option of the recording commands, not of _RO`);
  }
}
