/**
 * Rejections answered locally (`cacheRejections`). A rejected call records nothing, and no
 * call from anyone can make the same request acceptable before its retry_after_ms: until
 * then, the same command line gets the same answer without a round trip. The one thing it
 * gets wrong: a key deleted, reset or evicted by someone else is still refused until the
 * entry ends.
 */

import type { Call, Key } from "./commands";
import { Decision } from "./decision";

interface Entry {
  readonly decision: Decision;
  /** The call's key, as bytes: a string and its UTF-8 bytes are one key. */
  readonly key: Buffer;
  /** The clock's time (ms) when the reply arrived. */
  readonly at: number;
}

/** How many rejections a limiter's cache holds by default. */
export const DEFAULT_CACHE_SIZE = 10_000;

/** The rejections of at most `size` distinct command lines, each until its retry ends on
 * `clock` (this process's monotonic clock, in ms). The rules are the clients' shared ones
 * (clients/spec/cache.json). */
export class RejectionCache {
  // A Map iterates in insertion order: the first entry is the oldest, dropped first.
  private readonly entries = new Map<string, Entry>();
  private keptSinceSweep = 0;

  constructor(
    private readonly size: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** How many entries the cache holds. */
  get held(): number {
    return this.entries.size;
  }

  /** A decision for `call` from a rejection still in force, or undefined. Peeks never are. */
  answer(call: Call): Decision | undefined {
    if (call.readonly || call.refund === true) return undefined;
    const id = lineOf(call);
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const elapsed = this.clock() - entry.at;
    const { decision } = entry;
    if (elapsed >= decision.retryAfterMs) {
      this.entries.delete(id);
      return undefined;
    }
    // The whole ms elapsed, rounded down: a cached answer never says to come back earlier
    // than the server would.
    const whole = Math.floor(elapsed);
    return new Decision({
      allowed: false,
      limit: decision.limit,
      remaining: decision.remaining,
      retryAfterMs: Math.max(1, decision.retryAfterMs - whole),
      resetAfterMs: Math.max(0, decision.resetAfterMs - whole),
      policies: call.policies,
      cached: true,
      backend: decision.backend,
    });
  }

  /** Keep `decision`, the server's reply to `call` that arrived now, if it is a rejection
   * that ends (`retryAfterMs` > 0) of a call that records; it is then the newest entry. A
   * refund gave units back: the key's cached rejections are forgotten instead. */
  remember(call: Call, decision: Decision): void {
    if (call.refund === true) {
      this.forget(call.key);
      return;
    }
    if (call.readonly || decision.allowed || decision.retryAfterMs <= 0) return;
    const now = this.clock();
    const id = lineOf(call);
    this.entries.delete(id);
    // A sweep reads every entry: when full, at most once per `size` kept, so O(1) per call.
    if (++this.keptSinceSweep >= this.size && this.entries.size >= this.size) {
      this.dropEnded(now);
      this.keptSinceSweep = 0;
    }
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < this.size) break;
      this.entries.delete(oldest);
    }
    this.entries.set(id, { decision, at: now, key: bytesOf(call.key) });
  }

  /** Drop every entry of a command line on `key`. */
  forget(key: Key): void {
    const wanted = bytesOf(key);
    for (const [id, entry] of this.entries) {
      if (entry.key.equals(wanted)) this.entries.delete(id);
    }
  }

  /** Drop every entry that has ended. */
  private dropEnded(now: number): void {
    for (const [id, entry] of this.entries) {
      if (now - entry.at >= entry.decision.retryAfterMs) this.entries.delete(id);
    }
  }
}

function bytesOf(key: Key): Buffer {
  return typeof key === "string" ? Buffer.from(key) : key;
}

function lineOf(call: Call): string {
  // A Buffer's bytes in hex: a key that is not UTF-8 still names one entry exactly.
  return JSON.stringify(call.args.map((a) => (typeof a === "string" ? a : { hex: a.toString("hex") })));
}
