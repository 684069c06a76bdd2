package io.winlimit.memory;

import java.util.List;

/** WINLIMIT command lines as the memory limiter reads them (see {@link Parse}). */
final class Requests {
    private Requests() {}

    /** REFUND n and BLOCK ms, shared by the recording commands; null when not given. */
    record Extras(Long refund, Long blockMs) {
        static final Extras NONE = new Extras(null, null);
    }

    /** One window_ms limit pair. */
    record Pair(long windowMs, long limit) {}

    /** window_ms limit [window_ms limit ...] [COST n] [BUCKET ms]; windows shortest first. */
    record Slide(List<Pair> windows, long cost, Long bucketMs, Extras extras) {
        long largest() {
            return windows.get(windows.size() - 1).windowMs();
        }

        /** The request a refund replies as: a peek of cost 1. */
        Slide asPeek() {
            return new Slide(windows, 1, bucketMs, Extras.NONE);
        }
    }

    /** window_ms limit [COST n] [ALIGN]. */
    record Fixed(long windowMs, long limit, long cost, boolean align, Extras extras) {
        Fixed asPeek() {
            return new Fixed(windowMs, limit, 1, align, Extras.NONE);
        }
    }

    /** period_ms limit [BURST n] [COST n]. */
    record Gcra(long periodMs, long limit, long burst, long cost, Extras extras) {
        Gcra asPeek() {
            return new Gcra(periodMs, limit, burst, 1, Extras.NONE);
        }

        Gcra withoutExtras() {
            return new Gcra(periodMs, limit, burst, cost, Extras.NONE);
        }
    }
}
