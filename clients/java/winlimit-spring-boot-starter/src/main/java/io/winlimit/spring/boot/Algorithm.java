package io.winlimit.spring.boot;

import io.winlimit.AsyncLimiter;
import io.winlimit.model.CallOptions;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.model.SlideOptions;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

/**
 * The algorithm of a policy: one of winlimit's commands. Each constant says how a policy calls
 * it (its options' shape and its limiter method), so that a command's policy lives here alone.
 */
public enum Algorithm {
    /** WINLIMIT.SLIDE: the exact sliding window (or BUCKET), one or several windows. */
    SLIDE(true) {
        @Override
        SlideOptions options(RatePolicy p) {
            return p.bucket() == null ? SlideOptions.defaults() : SlideOptions.defaults().bucket(p.bucket());
        }

        @Override
        CompletionStage<Decision> call(AsyncLimiter limiter, String key, RatePolicy p, boolean refund) {
            return limiter.slide(key, p.windows(), p.common(options(p), refund));
        }
    },
    /** WINLIMIT.FIXED: a fixed-window counter, one window. */
    FIXED(false) {
        @Override
        FixedOptions options(RatePolicy p) {
            return FixedOptions.defaults().align(p.align());
        }

        @Override
        CompletionStage<Decision> call(AsyncLimiter limiter, String key, RatePolicy p, boolean refund) {
            return limiter.fixed(key, window(p), p.windows().get(0).limit(), p.common(options(p), refund));
        }
    },
    /** WINLIMIT.GCRA: a token bucket; the window is the period, the limit the units per period. */
    GCRA(false) {
        @Override
        GcraOptions options(RatePolicy p) {
            return p.burst() == null ? GcraOptions.defaults() : GcraOptions.defaults().burst(p.burst());
        }

        @Override
        CompletionStage<Decision> call(AsyncLimiter limiter, String key, RatePolicy p, boolean refund) {
            return limiter.gcra(key, window(p), p.windows().get(0).limit(), p.common(options(p), refund));
        }
    };

    private final boolean severalWindows;

    Algorithm(boolean severalWindows) {
        this.severalWindows = severalWindows;
    }

    /** Whether a policy of it may give several windows (at most 8), or one. */
    boolean severalWindows() {
        return severalWindows;
    }

    /** The options of the policy's shape (BUCKET, ALIGN, BURST), checked as they are set. */
    abstract CallOptions<?> options(RatePolicy policy);

    /** Records (or, with refund, gives back) the policy's cost for the key. */
    abstract CompletionStage<Decision> call(AsyncLimiter limiter, String key, RatePolicy policy, boolean refund);

    /** The property's spelling: "slide". */
    String propertyName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Every algorithm, as a property takes them: "slide, fixed or gcra". */
    static String choices() {
        String names = Arrays.stream(values()).map(Algorithm::propertyName).collect(Collectors.joining(", "));
        int last = names.lastIndexOf(", ");
        return last < 0 ? names : names.substring(0, last) + " or " + names.substring(last + 2);
    }

    private static Duration window(RatePolicy p) {
        return Duration.ofMillis(p.windows().get(0).windowMs());
    }
}
