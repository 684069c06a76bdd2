/**
 * The rejections whose decrement is still to come, per key, for WinlimitStore under
 * express-rate-limit's skipFailedRequests.
 *
 * A 429 is itself a failed request, so express-rate-limit decrements it; but winlimit
 * recorded nothing for it, and a refund would give back the unit an admitted request holds
 * (`limit` plus the number of 429s would get through). `decrement` only names the key, so
 * each rejection is remembered until its decrement arrives; units are alike, so which
 * request's decrement is skipped does not matter, only how many.
 *
 * express-rate-limit skips a decrement after the request's `resetTime`, so a rejection is
 * forgotten shortly after its own (GRACE_MS: the middleware's check and this one may read
 * the clock a millisecond apart). Forgetting late can only skip a refund (the count stays
 * safe); a sweep once per minute drops the keys that never came back.
 */

const GRACE_MS = 1_000;
const SWEEP_MS = 60_000;

export class PendingRejections {
  private readonly byKey = new Map<string, number[]>();
  private nextSweep = 0;

  /** A rejection of `key` whose decrement may come until `resetTime` (epoch ms). */
  add(key: string, resetTime: number): void {
    this.sweep(Date.now());
    const deadlines = this.byKey.get(key);
    if (deadlines === undefined) this.byKey.set(key, [resetTime + GRACE_MS]);
    else deadlines.push(resetTime + GRACE_MS);
  }

  /** True, and one rejection forgotten, when a rejection of `key` awaits its decrement. */
  take(key: string, now: number): boolean {
    const live = (this.byKey.get(key) ?? []).filter((deadline) => deadline > now);
    const taken = live.length > 0;
    if (taken) live.shift();
    if (live.length === 0) this.byKey.delete(key);
    else this.byKey.set(key, live);
    return taken;
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_MS;
    for (const [key, deadlines] of this.byKey) {
      const live = deadlines.filter((deadline) => deadline > now);
      if (live.length === 0) this.byKey.delete(key);
      else this.byKey.set(key, live);
    }
  }
}
