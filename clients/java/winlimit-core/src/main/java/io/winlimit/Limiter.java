package io.winlimit;

import io.winlimit.internal.library.Backends;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.model.RedisUnavailableException;
import io.winlimit.model.SlideOptions;
import io.winlimit.model.Window;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * The limiter, blocking: one method per winlimit command, each returning a {@link Decision}.
 * A view of an {@link AsyncLimiter}, which the adapters make:
 *
 * <pre>{@code
 * Limiter limiter = WinlimitLettuce.limiter(connection);
 * Decision d = limiter.slide("sms:" + user, Duration.ofHours(1), 3);
 * if (!d.allowed()) { ... d.headers() has RateLimit-Policy, RateLimit and Retry-After }
 * }</pre>
 *
 * <p>Bad arguments throw IllegalArgumentException before anything is sent; a failed Redis call
 * throws a {@link io.winlimit.model.WinlimitException} (see {@link AsyncLimiter}).
 */
public final class Limiter {
    private final AsyncLimiter async;

    Limiter(AsyncLimiter async) {
        this.async = async;
    }

    /** The asynchronous limiter this is a view of. */
    public AsyncLimiter async() {
        return async;
    }

    /** The Reactor view; IllegalStateException over a blocking client (Jedis). */
    public ReactiveLimiter reactive() {
        return async.reactive();
    }

    public LimiterConfig config() {
        return async.config();
    }

    /** A sliding window: at most {@code limit} units per {@code window}. */
    public Decision slide(String key, Duration window, long limit) {
        return await(async.slide(key, window, limit));
    }

    public Decision slide(String key, Duration window, long limit, SlideOptions options) {
        return await(async.slide(key, window, limit, options));
    }

    /** Several windows at once: accepted iff every window has room, then recorded once. */
    public Decision slide(String key, List<Window> windows) {
        return await(async.slide(key, windows));
    }

    public Decision slide(String key, List<Window> windows, SlideOptions options) {
        return await(async.slide(key, windows, options));
    }

    /** A fixed-window counter: at most {@code limit} units per {@code window}. */
    public Decision fixed(String key, Duration window, long limit) {
        return await(async.fixed(key, window, limit));
    }

    public Decision fixed(String key, Duration window, long limit, FixedOptions options) {
        return await(async.fixed(key, window, limit, options));
    }

    /** A token bucket (GCRA): {@code limit} units per {@code period}, bursts up to BURST. */
    public Decision gcra(String key, Duration period, long limit) {
        return await(async.gcra(key, period, limit));
    }

    public Decision gcra(String key, Duration period, long limit, GcraOptions options) {
        return await(async.gcra(key, period, limit, options));
    }

    /** Deletes the key and forgets its cached rejections; true if a key was removed. */
    public boolean reset(String key) {
        return await(async.reset(key));
    }

    private static <T> T await(CompletionStage<T> stage) {
        Future<T> future = stage.toCompletableFuture();
        try {
            return future.get();
        } catch (InterruptedException e) {
            future.cancel(false);
            Thread.currentThread().interrupt();
            throw new RedisUnavailableException("interrupted while waiting for Redis", e);
        } catch (ExecutionException e) {
            Throwable cause = Backends.cause(e);
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new RedisUnavailableException(String.valueOf(cause.getMessage()), cause);
        }
    }
}
