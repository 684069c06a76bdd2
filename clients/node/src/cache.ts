/**
 * Rejections answered locally (`cacheRejections`). A rejected call records nothing, and no
 * call from anyone can make the same request acceptable before its retry_after_ms: until
 * then, the same command line gets the same answer without a round trip. The one thing it
 * gets wrong: a key deleted, reset or evicted by someone else is still refused until the
 * entry ends.
 */

import type { Call } from "./commands";
import { Decision } from "./decision";

interface Entry {
  readonly decision: Decision;
  /** performance.now() when the reply arrived. */
  readonly at: number;
}

/** How many rejections a limiter's cache holds by default. */
export const DEFAULT_CACHE_SIZE = 10_000;

/** The rejections of the last `size` distinct command lines, each until its retry ends. */
export class RejectionCache {
  // A Map iterates in insertion order: the first entry is the oldest, dropped first.
  private readonly entries = new Map<string, Entry>();
  private storedSinceSweep = 0;

  constructor(private readonly size: number) {}

  /** A decision for `call` from a rejection still in force, or undefined. Peeks never are. */
  answer(call: Call): Decision | undefined {
    if (call.readonly) return undefined;
    const id = lineOf(call);
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const elapsed = performance.now() - entry.at;
    const { decision } = entry;
    if (elapsed >= decision.retryAfterMs) {
      this.entries.delete(id);
      return undefined;
    }
    return new Decision({
      allowed: false,
      limit: decision.limit,
      remaining: decision.remaining,
      // Rounded up: a cached answer never says to come back earlier than the server would.
      retryAfterMs: Math.max(1, Math.ceil(decision.retryAfterMs - elapsed)),
      resetAfterMs: Math.max(0, Math.ceil(decision.resetAfterMs - elapsed)),
      policies: call.policies,
      cached: true,
    });
  }

  /** Keep `decision`, the server's reply to `call` that arrived at `at`, if it is a
   * rejection that ends (`retryAfterMs` > 0) of a call that records. */
  remember(call: Call, decision: Decision, at: number): void {
    if (call.readonly || decision.allowed || decision.retryAfterMs <= 0) return;
    const id = lineOf(call);
    this.entries.delete(id);
    // When full, first drop the entries that have ended, at most once per `size` stores (a
    // sweep reads every entry), so ended entries do not push out ones still in force.
    if (++this.storedSinceSweep >= this.size && this.entries.size >= this.size) {
      this.dropEnded(at);
      this.storedSinceSweep = 0;
    }
    this.entries.set(id, { decision, at });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.size) break;
      this.entries.delete(oldest);
    }
  }

  /** Drop every entry that has ended. */
  private dropEnded(now: number): void {
    for (const [id, entry] of this.entries) {
      if (now - entry.at >= entry.decision.retryAfterMs) this.entries.delete(id);
    }
  }
}

function lineOf(call: Call): string {
  // A Buffer's bytes in hex: a key that is not UTF-8 still names one entry exactly.
  return JSON.stringify(call.args.map((a) => (typeof a === "string" ? a : { hex: a.toString("hex") })));
}
