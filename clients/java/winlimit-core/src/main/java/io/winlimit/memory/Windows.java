package io.winlimit.memory;

import java.util.List;
import java.util.function.LongSupplier;

/** The per-window arithmetic the sliding states share (src/core/slide.rs). */
final class Windows {
    private Windows() {}

    /** One window_ms limit pair's answer. */
    static final class PairState {
        final long windowMs;
        final long limit;
        long remaining;
        final long waitMs;
        long resetAfterMs;

        PairState(long windowMs, long limit, long remaining, long waitMs) {
            this.windowMs = windowMs;
            this.limit = limit;
            this.remaining = remaining;
            this.waitMs = waitMs;
        }
    }

    static long remainingOf(long limit, long used) {
        return Math.max(0, Math.min(limit - used, limit));
    }

    static long waitFor(long cost, long limit, long counted, LongSupplier freeingAt) {
        if (cost > limit) {
            return Block.NEVER;
        }
        if (counted + cost <= limit) {
            return 0;
        }
        return Math.max(1, freeingAt.getAsLong());
    }

    /** The pair the reply describes (pairs shortest first; ties go to the longer window):
     * accepted, the least remaining; a cost above a limit, the longest such; else the pair
     * whose room comes last. */
    static long[] bind(List<PairState> pairs, boolean allowed) {
        boolean anyNever = pairs.stream().anyMatch(q -> q.waitMs == Block.NEVER);
        PairState pair = pairs.get(0);
        for (PairState p : pairs) {
            boolean better = allowed ? p.remaining <= pair.remaining : anyNever ? p.waitMs == Block.NEVER : p.waitMs >= pair.waitMs;
            if (better) {
                pair = p;
            }
        }
        return new long[] {allowed ? 1 : 0, pair.limit, pair.remaining, pair.waitMs, pair.resetAfterMs};
    }

    /** What remains after recording, and when nothing counts in each window, given that the
     * newest unit counts until newestEnd + windowMs. */
    static void settle(List<PairState> pairs, long recorded, Long newestEnd, long now) {
        for (PairState p : pairs) {
            p.remaining -= recorded;
            p.resetAfterMs = newestEnd == null ? 0 : Math.max(0, newestEnd + p.windowMs - now);
        }
    }
}
