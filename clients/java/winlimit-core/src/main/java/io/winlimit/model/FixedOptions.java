package io.winlimit.model;

/** Options of {@code fixed}: those of every call, and ALIGN. */
public final class FixedOptions extends CallOptions<FixedOptions> {
    private boolean align;

    private FixedOptions() {}

    private FixedOptions(FixedOptions from) {
        super(from);
        align = from.align;
    }

    /**
     * No options: cost 1, recording, the limiter's name, windows from the first call.
     *
     * @return the options
     */
    public static FixedOptions defaults() {
        return new FixedOptions();
    }

    @Override
    FixedOptions copy() {
        return new FixedOptions(this);
    }

    /**
     * Windows start at multiples of the window since the Unix epoch (ALIGN).
     *
     * @param align true to align windows to the epoch
     * @return a copy with ALIGN set; these options are unchanged
     */
    public FixedOptions align(boolean align) {
        FixedOptions out = copy();
        out.align = align;
        return out;
    }

    /**
     * Whether windows start at multiples of the window since the Unix epoch (ALIGN).
     *
     * @return true if aligned
     */
    public boolean align() {
        return align;
    }
}
