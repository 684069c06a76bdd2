package io.winlimit.model;

import io.winlimit.internal.text.Args;
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

    /**
     * No options: cost 1, recording, the limiter's name.
     *
     * @return the options
     */
    public static SlideOptions defaults() {
        return new SlideOptions();
    }

    @Override
    SlideOptions copy() {
        return new SlideOptions(this);
    }

    /**
     * Count per bucket of this length instead of one entry per unit (BUCKET).
     *
     * @param bucket the bucket's length, in whole milliseconds
     * @return a copy with BUCKET set; these options are unchanged
     * @throws IllegalArgumentException if {@code bucket} is null or not whole milliseconds
     */
    public SlideOptions bucket(Duration bucket) {
        SlideOptions out = copy();
        out.bucketMs = Args.millis("bucket", bucket);
        return out;
    }

    /**
     * The bucket's length (BUCKET).
     *
     * @return milliseconds, empty for an exact log of one entry per unit
     */
    public OptionalLong bucketMs() {
        return bucketMs == null ? OptionalLong.empty() : OptionalLong.of(bucketMs);
    }
}
