/**
 * Shadow mode's warnings: one per key per quiet period, not one per request. The rules are
 * the clients' shared ones (clients/spec/shadow.json).
 */

import type { Decision } from "./decision";

/** How many keys the log remembers by default. */
export const SHADOW_LOG_KEYS = 10_000;

/** When each key was last warned about, so a flood over the limit is one line per period. */
export class ShadowLog {
  // key -> the clock's time until which it is not warned about again; a Map iterates in
  // insertion order, so the first key is the one warned about longest ago, forgotten first.
  private readonly quietUntil = new Map<string, number>();

  constructor(
    private readonly keys: number = SHADOW_LOG_KEYS,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** The warning for a rejection of `key` that shadow mode let through (`rateLimit`, the
   * RateLimit field it was sent), or undefined while the key's quiet period lasts. The period
   * is the rejection's retryAfterMs, or, when no retry can succeed (-1), its binding policy's
   * window. */
  warning(key: string, decision: Decision, rateLimit: string | undefined): string | undefined {
    const now = this.clock();
    const until = this.quietUntil.get(key);
    if (until !== undefined && now < until) return undefined;
    this.quietUntil.delete(key);
    const quietMs = decision.retryAfterMs > 0 ? decision.retryAfterMs : (decision.windowMs ?? 0);
    this.quietUntil.set(key, now + quietMs);
    for (const oldest of this.quietUntil.keys()) {
      if (this.quietUntil.size <= this.keys) break;
      this.quietUntil.delete(oldest);
    }
    return (
      `winlimit: shadow mode let through a request over the limit for ${JSON.stringify(key)}: ` +
      `RateLimit: ${rateLimit}, retry after ${decision.retryAfterMs} ms`
    );
  }
}
