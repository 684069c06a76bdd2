/**
 * The module's decisions on state held in this process, one class per kind of key: the same
 * rules as the Rust core (src/core/), checked against it by clients/spec/decisions.json.
 * Mirrors the Python client's `winlimit._memory_decide`.
 *
 * Each state answers `decide(now, request, peek)` with the five-integer reply and records an
 * accepted write in place; `expiresAt` (ms) is when nothing in it counts any more, after
 * which the store drops it. An empty state (nothing recorded yet) has `expiresAt` undefined.
 */

import { inForce, starts, whileBlocked } from "./memory-block";
import { error, MAX, type FixedRequest, type GcraRequest, type SlideRequest } from "./memory-parse";

const NEVER = -1;
export type Reply = [number, number, number, number, number];

function remainingOf(limit: number, used: number): number {
  return Math.max(0, Math.min(limit - used, limit));
}

/** `x / d` rounded up, exactly. */
function ceilDiv(x: bigint, d: bigint): bigint {
  const q = x / d;
  return q * d < x ? q + 1n : q;
}

/** `x / d` rounded down, exactly (bigint division truncates towards zero). */
function floorDiv(x: bigint, d: bigint): bigint {
  const q = x / d;
  return q * d > x ? q - 1n : q;
}

interface Pair {
  windowMs: number;
  limit: number;
  remaining: number;
  waitMs: number;
  resetAfterMs: number;
}

/** The pair the reply describes (pairs shortest first; ties go to the longer window):
 * accepted, the least remaining; a cost above a limit, the longest such; else the pair whose
 * room comes last. */
function bind(pairs: Pair[], allowed: boolean): Reply {
  let pair = pairs[0];
  for (const p of pairs) {
    if (allowed ? p.remaining <= pair.remaining : pairs.some((q) => q.waitMs === NEVER) ? p.waitMs === NEVER : p.waitMs >= pair.waitMs) {
      pair = p;
    }
  }
  return [allowed ? 1 : 0, pair.limit, pair.remaining, pair.waitMs, pair.resetAfterMs];
}

/** What remains after recording, and when nothing counts in each window, given that the
 * newest unit counts until `newestEnd + windowMs`. */
function settle(pairs: Pair[], recorded: number, newestEnd: number | undefined, now: number): void {
  for (const p of pairs) {
    p.remaining -= recorded;
    p.resetAfterMs = newestEnd === undefined ? 0 : Math.max(0, newestEnd + p.windowMs - now);
  }
}

function waitFor(cost: number, limit: number, counted: number, freeingAt: () => number): number {
  if (cost > limit) return NEVER;
  if (counted + cost <= limit) return 0;
  return Math.max(1, freeingAt());
}

/** The request a refund replies as: a peek of cost 1. */
function peekOf<R extends { cost: number; extras: object }>(request: R): R {
  return { ...request, cost: 1, extras: {} };
}

/** A log's reply once a rejection with BLOCK blocks it; the key lives until the block ends. */
function startBlock(state: Log | Buckets, reply: Reply, now: number, blockMs: number | undefined, peek: boolean): Reply {
  const until = starts(reply, peek, blockMs, now);
  if (until === undefined) return reply;
  state.blockedUntil = until;
  state.expiresAt = Math.max(state.expiresAt ?? until, until);
  return whileBlocked(reply, now, until);
}

/** The exact sliding log: one time per accepted unit, oldest first. */
export class Log {
  readonly kind = "log";
  times: number[] = [];
  expiresAt: number | undefined;
  blockedUntil: number | undefined;

  decide(now: number, request: SlideRequest, peek: boolean): Reply {
    const largest = request.windows[request.windows.length - 1][0];
    // Units that left the largest window count nowhere: drop them.
    this.times = this.times.filter((t) => t > now - largest);
    const blocked = inForce(this.blockedUntil, now);
    if (request.extras.refund !== undefined) {
      if (blocked === undefined && this.times.length > 0) {
        this.times.splice(Math.max(0, this.times.length - request.extras.refund));
        if (this.times.length === 0) this.expiresAt = now;
      }
      return this.decide(now, peekOf(request), true);
    }
    const cost = request.cost;
    const pairs = request.windows.map(([w, limit]) => {
      const counted = this.times.filter((t) => t > now - w).length;
      // Room comes once the unit `limit - cost` places from the newest leaves.
      const wait = waitFor(cost, limit, counted, () => this.times[this.times.length - 1 - (limit - cost)] + w - now);
      return { windowMs: w, limit, remaining: remainingOf(limit, counted), waitMs: wait, resetAfterMs: 0 };
    });
    const allowed = pairs.every((p) => p.waitMs === 0);
    const records = allowed && !peek;
    let newest = this.times.length > 0 ? this.times[this.times.length - 1] : undefined;
    if (records) newest = newest === undefined ? now : Math.max(newest, now);
    settle(pairs, records ? cost : 0, newest, now);
    const reply = bind(pairs, allowed);
    if (blocked !== undefined) return whileBlocked(reply, now, blocked);
    if (records) {
      for (let i = 0; i < cost; i++) this.times.push(now);
      this.times.sort((a, b) => a - b);
      this.expiresAt = this.times[this.times.length - 1] + largest;
    }
    return startBlock(this, reply, now, request.extras.blockMs, peek);
  }
}

/** The bucketed log: units per bucket of `bucketMs`, by bucket start. */
export class Buckets {
  readonly kind = "buckets";
  units = new Map<number, number>();
  expiresAt: number | undefined;
  blockedUntil: number | undefined;
  constructor(readonly bucketMs: number) {}

  /** The first bucket start `s` that counts: `now - (s + b - 1) < windowMs`. */
  private firstCounted(now: number, windowMs: number): number {
    const b = this.bucketMs;
    return Math.ceil((now - windowMs - b + 2) / b) * b;
  }

  decide(now: number, request: SlideRequest, peek: boolean): Reply {
    const b = this.bucketMs;
    if (request.bucketMs !== b) throw error(`BUCKET ${request.bucketMs} differs from the BUCKET ${b} this key was written with`);
    const largest = request.windows[request.windows.length - 1][0];
    const first = this.firstCounted(now, largest);
    for (const s of [...this.units.keys()]) if (s < first) this.units.delete(s);
    const blocked = inForce(this.blockedUntil, now);
    if (request.extras.refund !== undefined) {
      if (blocked === undefined) this.refund(now, request.extras.refund);
      return this.decide(now, peekOf(request), true);
    }
    const pairs = request.windows.map(([w, limit]) => this.pair(now, w, limit, request.cost));
    const allowed = pairs.every((p) => p.waitMs === 0);
    const records = allowed && !peek;
    let newest = this.units.size > 0 ? Math.max(...this.units.keys()) : undefined;
    const current = Math.floor(now / b) * b;
    if (records) newest = newest === undefined ? current : Math.max(newest, current);
    settle(pairs, records ? request.cost : 0, newest === undefined ? undefined : newest + b - 1, now);
    const reply = bind(pairs, allowed);
    if (blocked !== undefined) return whileBlocked(reply, now, blocked);
    if (records && newest !== undefined) {
      // Never into a bucket older than the newest (a clock that stepped back).
      this.units.set(newest, (this.units.get(newest) ?? 0) + request.cost);
      this.expiresAt = newest + b - 1 + largest;
    }
    return startBlock(this, reply, now, request.extras.blockMs, peek);
  }

  /** Up to `n` units leave the newest buckets first; a ring left empty goes. */
  private refund(now: number, n: number): void {
    for (const s of [...this.units.keys()].sort((x, y) => y - x)) {
      const units = this.units.get(s)!;
      const taken = Math.min(n, units);
      n -= taken;
      if (units === taken) this.units.delete(s);
      else this.units.set(s, units - taken);
    }
    if (this.units.size === 0 && this.expiresAt !== undefined) this.expiresAt = now;
  }

  private pair(now: number, windowMs: number, limit: number, cost: number): Pair {
    const first = this.firstCounted(now, windowMs);
    const counted = [...this.units].filter(([s]) => s >= first).sort((x, y) => x[0] - y[0]);
    const total = counted.reduce((sum, [, u]) => sum + u, 0);
    // Buckets leave oldest first: the one whose departure frees enough room.
    const wait = waitFor(cost, limit, total, () => {
      let freed = 0;
      let freeing = first;
      for (const [s, u] of counted) {
        freeing = s;
        freed += u;
        if (freed >= total + cost - limit) break;
      }
      return freeing + this.bucketMs - 1 + windowMs - now;
    });
    return { windowMs, limit, remaining: remainingOf(limit, total), waitMs: wait, resetAfterMs: 0 };
  }
}

/** The fixed window: a count and the window's end; a count above 10^12 is a block. */
export class Counter {
  readonly kind = "counter";
  count = 0;
  expiresAt: number | undefined;

  decide(now: number, request: FixedRequest, peek: boolean): Reply {
    const live = this.expiresAt !== undefined && this.expiresAt > now;
    if (request.extras.refund !== undefined) {
      if (live && this.count > 0 && this.count <= MAX) this.count = Math.max(this.count - request.extras.refund, 0);
      return this.decide(now, peekOf(request), true);
    }
    const { windowMs: w, limit, cost } = request;
    const end = live ? this.expiresAt! : request.align ? (Math.floor(now / w) + 1) * w : now + w;
    const count = live ? this.count : 0;
    const allowed = cost <= limit && count + cost <= limit;
    const after = allowed && !peek ? count + cost : count;
    const left = end - now;
    const retry = allowed ? 0 : cost > limit ? NEVER : left;
    const reply: Reply = [allowed ? 1 : 0, limit, remainingOf(limit, after), retry, after > 0 ? left : 0];
    if (count > MAX) return whileBlocked(reply, now, end);
    if (allowed && !peek) [this.count, this.expiresAt] = [after, end];
    const until = starts(reply, peek, request.extras.blockMs, now);
    if (until === undefined) return reply;
    // One expiry holds the block and the window: the later end.
    [this.count, this.expiresAt] = [MAX + 1, Math.max(until, end)];
    return whileBlocked(reply, now, this.expiresAt);
  }
}

/** GCRA: the theoretical arrival time, exactly `ms + rem / den` ms, written with
 * `den = limit`; a TAT written with another limit is read rounded up. A block keeps its end
 * beside the TAT, which it pushed so that the next unit arrives when it ends. */
export class Tat {
  readonly kind = "tat";
  tat: [bigint, bigint, bigint] | undefined;
  expiresAt: number | undefined;
  blockedUntil: number | undefined;

  /** The TAT in units of 1/limit ms, at least now. */
  private units(now: number, limit: bigint): bigint {
    const nowU = BigInt(now) * limit;
    if (this.tat === undefined || this.expiresAt === undefined || this.expiresAt <= now) return nowU;
    const [ms, rem, den] = this.tat;
    const stored = ms * limit + (den === limit ? rem : ceilDiv(rem * limit, den));
    return stored > nowU ? stored : nowU;
  }

  private write(tatU: bigint, l: bigint, blockedUntil: number | undefined): void {
    const ms = floorDiv(tatU, l);
    const rem = tatU - ms * l;
    this.tat = [ms, rem, l];
    this.expiresAt = Number(ms) + (rem !== 0n ? 1 : 0);
    this.blockedUntil = blockedUntil;
  }

  decide(now: number, request: GcraRequest, peek: boolean): Reply {
    const [l, p] = [BigInt(request.limit), BigInt(request.periodMs)];
    const live = this.expiresAt !== undefined && this.expiresAt > now;
    const blocked = live ? inForce(this.blockedUntil, now) : undefined;
    const tatU = this.units(now, l);
    const nowU = BigInt(now) * l;
    if (request.extras.refund !== undefined) {
      if (blocked === undefined && tatU > nowU) {
        // The TAT back by `n` emission intervals, never before now (a full bucket: no key).
        const after = tatU - BigInt(request.extras.refund) * p;
        if (after <= nowU) [this.tat, this.expiresAt, this.blockedUntil] = [undefined, now, undefined];
        else this.write(after, l, undefined);
      }
      return this.decide(now, peekOf(request), true);
    }
    const [reply, records] = this.bucket(now, request, tatU, peek);
    if (blocked !== undefined) return whileBlocked(reply, now, blocked);
    if (records) this.write(tatU + BigInt(request.cost) * p, l, undefined);
    const until = starts(reply, peek, request.extras.blockMs, now);
    if (until === undefined) return reply;
    const pushed = BigInt(until) * l + BigInt(request.burst - 1) * p;
    this.write(tatU > pushed ? tatU : pushed, l, until);
    return this.decide(now, { ...request, extras: {} }, true);
  }

  /** The bucket's own reply, and whether the call records its cost. */
  private bucket(now: number, request: GcraRequest, tatU: bigint, peek: boolean): [Reply, boolean] {
    const [l, p, burst] = [BigInt(request.limit), BigInt(request.periodMs), BigInt(request.burst)];
    const capacity = burst * p;
    const debt = tatU - BigInt(now) * l;
    const whole = (d: bigint) => {
      const units = floorDiv(capacity - d > 0n ? capacity - d : 0n, p);
      return Number(units < burst ? units : burst);
    };
    if (request.cost > request.burst) return [[0, request.burst, whole(debt), NEVER, Number(ceilDiv(debt, l))], false];
    const cost = BigInt(request.cost) * p;
    const allowed = debt + cost <= capacity;
    const records = allowed && !peek;
    const after = records ? debt + cost : debt;
    const retry = allowed ? 0 : Number(ceilDiv(debt + cost - capacity, l));
    return [[allowed ? 1 : 0, request.burst, whole(after), retry, Number(ceilDiv(after, l))], records];
  }
}
