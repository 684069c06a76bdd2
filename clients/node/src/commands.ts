/**
 * WINLIMIT command lines and the policies they check. Mirrors the Python client's
 * `winlimit._commands`: the same arguments, the same policy names and windows. Types are
 * checked here, before anything is sent; ranges are the server's to judge, in its own words.
 */

import { Policy, sfString } from "./decision";

/** A key: a string or the bytes of one. */
export type Key = string | Buffer;

/** One `[windowMs, limit]` pair of a sliding-window call. */
export type Pair = readonly [windowMs: number, limit: number];

/** The default policy name in the header fields. */
export const DEFAULT_NAME = "winlimit";

/** One command line to send, and the policies its reply describes. */
export interface Call {
  /** The command and its arguments; integers as decimal strings. */
  readonly args: readonly (string | Buffer)[];
  /** The key, for cluster clients that route by it. */
  readonly key: Key;
  /** True for the `_RO` variants, which a cluster client may send to a replica. */
  readonly readonly: boolean;
  /** True for a REFUND, which gives units back (a rejection cached for its key may be wrong). */
  readonly refund?: boolean;
  readonly policies: readonly Policy[];
  /** The call's options, checked to be an object (the limiter reads `waitMs`). */
  readonly options: CallOptions;
}

/** A policy name usable in the header fields (a Structured Field String). */
export function checkName(name: unknown): string {
  if (typeof name !== "string") throw new TypeError(`a policy name must be a string, not ${typeof name}`);
  sfString(name);
  return name;
}

/** `value` as the decimal string Redis reads; a TypeError for anything but an integer, a
 * RangeError for an integer a `number` cannot hold exactly (it would have been rounded). */
export function integer(what: string, value: unknown): string {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new TypeError(`${what} must be an integer, not ${describe(value)}`);
  }
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${what} ${value} is beyond Number.MAX_SAFE_INTEGER, so it may have been rounded`);
  }
  return String(value);
}

function describe(value: unknown): string {
  return typeof value === "number" ? String(value) : typeof value === "string" ? JSON.stringify(value) : typeof value;
}

function checkKey(key: unknown): Key {
  if (typeof key !== "string" && !Buffer.isBuffer(key)) {
    throw new TypeError(`the key must be a string or a Buffer, not ${typeof key}`);
  }
  return key;
}

/** The command, `_RO` for a peek, and the key: how every line starts. */
function start(command: string, key: unknown, peek: boolean): (string | Buffer)[] {
  return [peek ? `${command}_RO` : command, checkKey(key)];
}

/** How a policy of several windows is named after its window: whole seconds as `60s`,
 * anything else in ms (`1500ms`). Unique per call, as the server refuses a windowMs given
 * twice. */
export function windowLabel(windowMs: number): string {
  return windowMs % 1000 === 0 ? `${windowMs / 1000}s` : `${windowMs}ms`;
}

/** COST, REFUND and BLOCK, in the server's order. REFUND with COST or BLOCK is sent as
 * given: the server refuses the pair in its own words. */
function unitArgs(o: CallOptions): string[] {
  const n = integer("cost", o.cost ?? 1);
  const args = n === "1" ? [] : ["COST", n];
  if (o.refund !== undefined) args.push("REFUND", integer("refund", o.refund));
  if (o.blockMs !== undefined) args.push("BLOCK", integer("blockMs", o.blockMs));
  return args;
}

function flag(what: string, value: unknown): boolean {
  if (value !== undefined && typeof value !== "boolean") {
    throw new TypeError(`${what} must be a boolean, not ${typeof value}`);
  }
  return value === true;
}

/** The options every method takes. */
export interface CallOptions {
  /** Units this request takes (COST); default 1. */
  cost?: number;
  /** Give back up to this many units, the newest first, instead of taking any (REFUND);
   * the decision is the peek that follows. */
  refund?: number;
  /** Once rejected, the key is refused for this many ms (BLOCK). */
  blockMs?: number;
  /** Ask the `_RO` variant, which records nothing. */
  peek?: boolean;
  /** The policy name for this call. */
  name?: string;
  /** When rejected, sleep `retryAfterMs` and call again, until accepted or until the next
   * sleep would end more than `waitMs` after the call began; not with `peek`. */
  waitMs?: number;
}

/** Options of `slide`. */
export interface SlideOptions extends CallOptions {
  /** Count per bucket of this many ms (BUCKET). */
  bucket?: number;
}

/** Options of `fixed`. */
export interface FixedOptions extends CallOptions {
  /** Windows start at multiples of windowMs since the epoch (ALIGN). */
  align?: boolean;
}

/** Options of `gcra`. */
export interface GcraOptions extends CallOptions {
  /** The bucket's capacity (BURST); default the limit. */
  burst?: number;
}

/** The options object of a call: `{}` when absent, a TypeError when not an object. */
function checkOptions<T extends object>(options: unknown): T {
  if (options === undefined) return {} as T;
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`the options must be an object, not ${JSON.stringify(options)}`);
  }
  return options as T;
}

function nameOf(options: CallOptions, defaultName: string): string {
  return options.name === undefined ? defaultName : checkName(options.name);
}

/** The pairs of `slide(key, windowMs, limit)` or `slide(key, [[windowMs, limit], ...])`. */
function slidePairs(windows: unknown, limit: unknown): [number, number][] {
  if (typeof windows === "number") {
    if (limit === undefined) throw new TypeError("slide(key, windowMs, limit): the limit is missing");
    integer("windowMs", windows);
    integer("limit", limit);
    return [[windows, limit as number]];
  }
  if (!Array.isArray(windows)) {
    throw new TypeError(`slide takes windowMs and limit, or an array of [windowMs, limit] pairs, not ${describe(windows)}`);
  }
  if (limit !== undefined) throw new TypeError("pass either windowMs and limit, or an array of [windowMs, limit] pairs");
  if (windows.length === 0) throw new RangeError("slide needs at least one [windowMs, limit] pair");
  return windows.map((pair: unknown) => {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new TypeError(`each window is a [windowMs, limit] pair, not ${JSON.stringify(pair)}`);
    }
    integer("windowMs", pair[0]);
    integer("limit", pair[1]);
    return [pair[0] as number, pair[1] as number];
  });
}

/** What a command keeps under its key, by clients/spec/command_table.json's `state`: the
 * memory limiter picks its store from it (a log with BUCKET is a ring of buckets). */
export type StateKind = "log" | "counter" | "tat";

/** One command this client sends, declared once beside its builder: the module's writer (the
 * reader is its `_RO` form), the limiter method that sends it, its state kind and the options
 * that shape its limit (what its reader takes, the cost aside). Every list of commands in the
 * client (the methods a refund records, the options it repeats, the memory limiter's stores)
 * is read from {@link COMMANDS}. */
export interface CommandSpec {
  readonly command: string;
  readonly method: string;
  readonly state: StateKind;
  readonly shape: readonly string[];
}

/** Every command the client sends, by the writer's name. */
export const COMMANDS = new Map<string, CommandSpec>();

function defines(spec: CommandSpec): void {
  COMMANDS.set(spec.command, spec);
}

// Each builder takes the limiter's default name, then the arguments of the limiter method of
// the same name, as the user passed them.

defines({ command: "WINLIMIT.SLIDE", method: "slide", state: "log", shape: ["bucket"] });
/** WINLIMIT.SLIDE[_RO] key window_ms limit [window_ms limit ...] [COST n | REFUND n] [BLOCK ms] [BUCKET ms]:
 * `slide(name, key, windowMs, limit, options?)` or `slide(name, key, [[windowMs, limit], ...], options?)`. */
export function slide(defaultName: string, key: unknown, windows: unknown, ...rest: unknown[]): Call {
  const several = typeof windows !== "number";
  if (several && rest.length > 1) throw new TypeError("pass either windowMs and limit, or an array of [windowMs, limit] pairs");
  const pairs = slidePairs(windows, several ? undefined : rest[0]);
  const options = checkOptions<SlideOptions>(several ? rest[0] : rest[1]);
  const peek = flag("peek", options.peek);
  const name = nameOf(options, defaultName);
  const args = start("WINLIMIT.SLIDE", key, peek);
  for (const [w, lim] of pairs) args.push(String(w), String(lim));
  args.push(...unitArgs(options));
  if (options.bucket !== undefined) args.push("BUCKET", integer("bucket", options.bucket));
  const policies =
    pairs.length === 1
      ? [{ name, quota: pairs[0][1], windowMs: pairs[0][0] }]
      : pairs.map(([w, lim]) => ({ name: `${name}-${windowLabel(w)}`, quota: lim, windowMs: w }));
  return { args, key: key as Key, readonly: peek, refund: options.refund !== undefined, policies, options };
}

defines({ command: "WINLIMIT.FIXED", method: "fixed", state: "counter", shape: ["align"] });
/** WINLIMIT.FIXED[_RO] key window_ms limit [COST n | REFUND n] [BLOCK ms] [ALIGN]: `fixed(name, key, windowMs, limit, options?)`. */
export function fixed(defaultName: string, key: unknown, windowMs: unknown, limit: unknown, options?: unknown): Call {
  const o = checkOptions<FixedOptions>(options);
  const peek = flag("peek", o.peek);
  const args = [...start("WINLIMIT.FIXED", key, peek), integer("windowMs", windowMs), integer("limit", limit), ...unitArgs(o)];
  if (flag("align", o.align)) args.push("ALIGN");
  const policies = [{ name: nameOf(o, defaultName), quota: limit as number, windowMs: windowMs as number }];
  return { args, key: key as Key, readonly: peek, refund: o.refund !== undefined, policies, options: o };
}

defines({ command: "WINLIMIT.GCRA", method: "gcra", state: "tat", shape: ["burst"] });
/** WINLIMIT.GCRA[_RO] key period_ms limit [BURST n] [COST n | REFUND n] [BLOCK ms]: `gcra(name, key, periodMs, limit, options?)`. */
export function gcra(defaultName: string, key: unknown, periodMs: unknown, limit: unknown, options?: unknown): Call {
  const o = checkOptions<GcraOptions>(options);
  const peek = flag("peek", o.peek);
  const args = [...start("WINLIMIT.GCRA", key, peek), integer("periodMs", periodMs), integer("limit", limit)];
  const capacity = o.burst === undefined ? (limit as number) : o.burst;
  if (o.burst !== undefined) args.push("BURST", integer("burst", o.burst));
  args.push(...unitArgs(o));
  // The bucket refills `limit` units per period: empty to full takes capacity / limit
  // periods, rounded up, exactly (the product can pass 2^53). A limit <= 0 is refused by
  // the server; the policy is then never read.
  const lim = limit as number;
  const refillMs =
    lim > 0 ? Number((BigInt(capacity) * BigInt(periodMs as number) + BigInt(lim) - 1n) / BigInt(lim)) : (periodMs as number);
  return { args, key: key as Key, readonly: peek, refund: o.refund !== undefined, policies: [{ name: nameOf(o, defaultName), quota: capacity, windowMs: refillMs }], options: o };
}
