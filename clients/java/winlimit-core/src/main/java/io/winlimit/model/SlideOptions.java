package io.winlimit.model;

import java.time.Duration;
import java.util.OptionalLong;

/** Options of {@code slide}: those of every call, and BUCKET. */
public final class SlideOptions extends CallOptions<SlideOptions> {
    private Long bucketMs;

    private SlideOptions() {}

    private SlideOptions(SlideOptions from) {
        super(from);
        bucketMs = from.bucketMs;
    }

    /** No options: cost 1, recording, the limiter's name. */
    public static SlideOptions defaults() {
        return new SlideOptions();
    }

    @Override
    SlideOptions copy() {
        return new SlideOptions(this);
    }

    /** Count per bucket of this length instead of one entry per unit (BUCKET). */
    public SlideOptions bucket(Duration bucket) {
        SlideOptions out = copy();
        out.bucketMs = Args.millis("bucket", bucket);
        return out;
    }

    public OptionalLong bucketMs() {
        return bucketMs == null ? OptionalLong.empty() : OptionalLong.of(bucketMs);
    }
}
