package io.winlimit.servers;

import io.winlimit.AsyncLimiter;
import io.winlimit.Limiter;
import io.winlimit.ReactiveLimiter;
import io.winlimit.internal.library.Backends;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.model.SlideOptions;
import io.winlimit.model.Window;
import io.winlimit.support.Spec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/** One view of a limiter (sync, CompletionStage or Mono) seen through blocking calls, so one
 * contract runs on every view; errors come out as the view's caller would catch them. */
public interface Subject extends Spec.Methods<Decision> {
    boolean reset(String key);

    default Decision slide(String key, Duration window, long limit) {
        return slide(key, List.of(Window.of(window, limit)), SlideOptions.defaults());
    }

    default Decision fixed(String key, Duration window, long limit) {
        return fixed(key, window, limit, FixedOptions.defaults());
    }

    static Subject of(Limiter limiter) {
        return new Subject() {
            public Decision slide(String key, List<Window> windows, SlideOptions o) {
                return limiter.slide(key, windows, o);
            }

            public Decision fixed(String key, Duration window, long limit, FixedOptions o) {
                return limiter.fixed(key, window, limit, o);
            }

            public Decision gcra(String key, Duration period, long limit, GcraOptions o) {
                return limiter.gcra(key, period, limit, o);
            }

            public boolean reset(String key) {
                return limiter.reset(key);
            }
        };
    }

    static Subject of(AsyncLimiter limiter) {
        return new Subject() {
            public Decision slide(String key, List<Window> windows, SlideOptions o) {
                return join(limiter.slide(key, windows, o));
            }

            public Decision fixed(String key, Duration window, long limit, FixedOptions o) {
                return join(limiter.fixed(key, window, limit, o));
            }

            public Decision gcra(String key, Duration period, long limit, GcraOptions o) {
                return join(limiter.gcra(key, period, limit, o));
            }

            public boolean reset(String key) {
                return join(limiter.reset(key));
            }
        };
    }

    static Subject of(ReactiveLimiter limiter) {
        return new Subject() {
            public Decision slide(String key, List<Window> windows, SlideOptions o) {
                return limiter.slide(key, windows, o).block();
            }

            public Decision fixed(String key, Duration window, long limit, FixedOptions o) {
                return limiter.fixed(key, window, limit, o).block();
            }

            public Decision gcra(String key, Duration period, long limit, GcraOptions o) {
                return limiter.gcra(key, period, limit, o).block();
            }

            public boolean reset(String key) {
                return limiter.reset(key).block();
            }
        };
    }

    private static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().join();
        } catch (CompletionException e) {
            Throwable cause = Backends.cause(e);
            throw cause instanceof RuntimeException r ? r : e;
        }
    }
}
