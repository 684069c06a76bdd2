// slide, fixed and gcra, shared by Limiter (Redis) and MemoryLimiter (this process): each
// builds its command line, with the limiter's blockMs as the default BLOCK of a recording
// call, and waits (waitMs) around the limiter's own `once`.

import * as commands from "./commands";
import type { Call, FixedOptions, GcraOptions, Key, Pair, SlideOptions } from "./commands";
import { Decision } from "./decision";

export abstract class CommandMethods {
  abstract readonly name: string;
  protected abstract readonly blockMs: number | undefined;

  /** Answers one command line, once. */
  protected abstract once(call: Call): Promise<Decision>;

  /** WINLIMIT.SLIDE: `slide(key, 60_000, 100)`, or several windows at once:
   * `slide(key, [[1_000, 10], [60_000, 100]])`. `bucket: ms` counts per bucket (BUCKET);
   * `peek: true` asks WINLIMIT.SLIDE_RO, which records nothing. */
  slide(key: Key, windowMs: number, limit: number, options?: SlideOptions): Promise<Decision>;
  slide(key: Key, windows: readonly Pair[], options?: SlideOptions): Promise<Decision>;
  async slide(key: Key, windows: number | readonly Pair[], ...rest: unknown[]): Promise<Decision> {
    const at = typeof windows === "number" ? 1 : 0; // where the options object is
    const args = [...rest];
    args[at] = withBlock(this.blockMs, args[at]);
    return this.run(commands.slide(this.name, key, windows, ...args));
  }

  /** WINLIMIT.FIXED; `align: true` starts windows at multiples of windowMs since the epoch
   * (ALIGN); `peek: true` asks WINLIMIT.FIXED_RO. */
  async fixed(key: Key, windowMs: number, limit: number, options?: FixedOptions): Promise<Decision> {
    return this.run(commands.fixed(this.name, key, windowMs, limit, withBlock(this.blockMs, options)));
  }

  /** WINLIMIT.GCRA: `limit` units per `periodMs`, at most `burst` at once (default `limit`);
   * the decision's `limit` is the bucket's capacity. `peek: true` asks WINLIMIT.GCRA_RO. */
  async gcra(key: Key, periodMs: number, limit: number, options?: GcraOptions): Promise<Decision> {
    return this.run(commands.gcra(this.name, key, periodMs, limit, withBlock(this.blockMs, options)));
  }

  private async run(call: Call): Promise<Decision> {
    return runWaiting(call, (c) => this.once(c));
  }
}

/** A call's options with the limiter's `blockMs` for a recording call that gives none;
 * anything else (a peek, a refund, not an object: the builder refuses it) as given. */
export function withBlock(blockMs: number | undefined, options: unknown): unknown {
  if (blockMs === undefined || options === null || (options !== undefined && typeof options !== "object")) return options;
  const o = (options ?? {}) as { blockMs?: unknown; peek?: unknown; refund?: unknown };
  if (o.blockMs !== undefined || o.peek === true || o.refund !== undefined) return options;
  return { ...o, blockMs };
}

/** Answers `call` by `once`; with `waitMs`, sleeps `retryAfterMs` and asks again while
 * rejected, until accepted or until the next sleep would end after the deadline. */
export async function runWaiting(call: Call, once: (call: Call) => Promise<Decision>): Promise<Decision> {
  const waitMs = checkWait(call.options.waitMs, call.readonly, call.refund === true);
  if (waitMs === undefined) return once(call);
  const deadline = performance.now() + waitMs;
  let waited = 0;
  for (;;) {
    const decision = await once(call);
    // -1: the request can never fit, so waiting would not help.
    if (decision.allowed || decision.retryAfterMs <= 0 || performance.now() + decision.retryAfterMs > deadline) {
      return new Decision({ ...decision, waitedMs: Math.round(waited) });
    }
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, decision.retryAfterMs));
    waited += performance.now() - start;
  }
}

function checkWait(waitMs: unknown, peek: boolean, refund: boolean): number | undefined {
  if (waitMs === undefined) return undefined;
  if (typeof waitMs !== "number") throw new TypeError(`waitMs must be a number of ms, not ${typeof waitMs}`);
  if (!(waitMs > 0) || !Number.isFinite(waitMs)) throw new RangeError(`waitMs must be a positive number of ms, not ${waitMs}`);
  if (peek) throw new TypeError("peek records nothing, so waiting for it to be accepted makes no sense: drop waitMs or peek");
  if (refund) throw new TypeError("refund takes nothing, so waiting for it to be accepted makes no sense: drop waitMs or refund");
  return waitMs;
}
