package io.winlimit.model;

import java.util.OptionalLong;

/** Options of {@code gcra}: those of every call, and BURST. */
public final class GcraOptions extends CallOptions<GcraOptions> {
    private Long burst;

    private GcraOptions() {}

    private GcraOptions(GcraOptions from) {
        super(from);
        burst = from.burst;
    }

    /**
     * No options: cost 1, recording, the limiter's name, a bucket of the limit.
     *
     * @return the options
     */
    public static GcraOptions defaults() {
        return new GcraOptions();
    }

    @Override
    GcraOptions copy() {
        return new GcraOptions(this);
    }

    /**
     * The bucket's capacity (BURST); default the limit.
     *
     * @param burst the capacity, in units (the module checks its range)
     * @return a copy with BURST set; these options are unchanged
     */
    public GcraOptions burst(long burst) {
        GcraOptions out = copy();
        out.burst = burst;
        return out;
    }

    /**
     * The bucket's capacity (BURST).
     *
     * @return the capacity, empty for the limit
     */
    public OptionalLong burst() {
        return burst == null ? OptionalLong.empty() : OptionalLong.of(burst);
    }
}
