package io.winlimit.memory;

/**
 * BLOCK ms, as src/core/block.rs: a recording call with BLOCK that is rejected with a wait
 * blocks the key for ms; while blocked every call is rejected and records nothing, peeks
 * answer the same, and a rejection does not extend the block.
 */
final class Block {
    static final long NEVER = -1;

    private Block() {}

    /** The reply while blocked until {@code until}: rejected, nothing remaining, the larger wait. */
    static long[] whileBlocked(long[] reply, long now, long until) {
        long left = until - now;
        return new long[] {0, reply[1], 0, Math.max(reply[3], left), Math.max(reply[4], left)};
    }

    /** The end of the block this call's own reply starts (on a key not blocked already), or null. */
    static Long starts(long[] reply, boolean peek, Long blockMs, long now) {
        if (blockMs == null || peek || reply[0] == 1 || reply[3] == NEVER) {
            return null;
        }
        return now + blockMs;
    }

    /** A stored block's end while it is still in force, or null. */
    static Long inForce(Long until, long now) {
        return until != null && until > now ? until : null;
    }
}
