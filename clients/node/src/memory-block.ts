/**
 * `BLOCK ms` for the memory limiter, as src/core/block.rs: a recording call with BLOCK that
 * is rejected with a wait blocks the key for `ms`; while blocked every call is rejected and
 * records nothing, peeks answer the same, and a rejection does not extend the block.
 * Mirrors the Python client's `winlimit._memory_block`.
 */

const NEVER = -1;
type Reply = [number, number, number, number, number];

/** The reply while blocked until `until`: rejected, nothing remaining, the larger wait. */
export function whileBlocked(reply: Reply, now: number, until: number): Reply {
  const left = until - now;
  return [0, reply[1], 0, Math.max(reply[3], left), Math.max(reply[4], left)];
}

/** The end of the block this call's own reply starts (on a key not blocked already). */
export function starts(reply: Reply, peek: boolean, blockMs: number | undefined, now: number): number | undefined {
  if (blockMs === undefined || peek || reply[0] === 1 || reply[3] === NEVER) return undefined;
  return now + blockMs;
}

/** A stored block's end while it is still in force. */
export function inForce(until: number | undefined, now: number): number | undefined {
  return until !== undefined && until > now ? until : undefined;
}
