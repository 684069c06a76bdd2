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

    /**
     * The asynchronous limiter this is a view of.
     *
     * @return the limiter whose calls this one waits on
     */
    public AsyncLimiter async() {
        return async;
    }

    /**
     * The Reactor view of the same limiter.
     *
     * @return the reactive limiter
     * @throws IllegalStateException over a blocking client (Jedis)
     */
    public ReactiveLimiter reactive() {
        return async.reactive();
    }

    /**
     * The configuration the limiter was made with.
     *
     * @return its configuration (immutable)
     */
    public LimiterConfig config() {
        return async.config();
    }

    /**
     * A sliding window: at most {@code limit} units per {@code window}; waits for the answer.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @return the decision
     * @throws io.winlimit.model.WinlimitException when Redis fails, times out or refuses the call
     *     (unless a fallback decides instead), or when interrupted while waiting
     */
    public Decision slide(String key, Duration window, long limit) {
        return await(async.slide(key, window, limit));
    }

    /**
     * A sliding window with options (units, BUCKET, BLOCK, PEEK, NAME); waits for the answer.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @param options the call's options
     * @return the decision
     * @throws io.winlimit.model.WinlimitException when Redis fails, times out or refuses the call
     *     (unless a fallback decides instead), or when interrupted while waiting
     */
    public Decision slide(String key, Duration window, long limit, SlideOptions options) {
        return await(async.slide(key, window, limit, options));
    }

    /**
     * Several windows at once: accepted iff every window has room, then recorded once.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param windows the windows, each with its limit (at least one)
     * @return the decision; its policy fields are the binding window's
     * @throws io.winlimit.model.WinlimitException when Redis fails, times out or refuses the call
     *     (unless a fallback decides instead), or when interrupted while waiting
     */
    public Decision slide(String key, List<Window> windows) {
        return await(async.slide(key, windows));
    }

    /**
     * Several windows at once, with options.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param windows the windows, each with its limit (at least one)
     * @param options the call's options
     * @return the decision; its policy fields are the binding window's
     * @throws io.winlimit.model.WinlimitException when Redis fails, times out or refuses the call
     *     (unless a fallback decides instead), or when interrupted while waiting
     */
    public Decision slide(String key, List<Window> windows, SlideOptions options) {
        return await(async.slide(key, windows, options));
    }

    /**
     * A fixed-window counter: at most {@code limit} units per {@code window}; waits for the answer.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @return the decision
     * @throws io.winlimit.model.WinlimitException when Redis fails, times out or refuses the call
     *     (unless a fallback decides instead), or when interrupted while waiting
     */
    public Decision fixed(String key, Duration window, long limit) {
        return await(async.fixed(key, window, limit));
    }

    /**
     * A fixed-window counter with options (units, ALIGN, BLOCK, PEEK, NAME).
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @param options the call's options
     * @return the decision
     * @throws io.winlimit.model.WinlimitException when Redis fails, times out or refuses the call
     *     (unless a fallback decides instead), or when interrupted while waiting
     */
    public Decision fixed(String key, Duration window, long limit, FixedOptions options) {
        return await(async.fixed(key, window, limit, options));
    }

    /**
     * A token bucket (GCRA): {@code limit} units per {@code period}; waits for the answer.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param period the period the limit refills over, in whole milliseconds
     * @param limit the units per period
     * @return the decision
     * @throws io.winlimit.model.WinlimitException when Redis fails, times out or refuses the call
     *     (unless a fallback decides instead), or when interrupted while waiting
     */
    public Decision gcra(String key, Duration period, long limit) {
        return await(async.gcra(key, period, limit));
    }

    /**
     * A token bucket (GCRA) with options (units, BURST, BLOCK, PEEK, NAME).
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param period the period the limit refills over, in whole milliseconds
     * @param limit the units per period
     * @param options the call's options
     * @return the decision
     * @throws io.winlimit.model.WinlimitException when Redis fails, times out or refuses the call
     *     (unless a fallback decides instead), or when interrupted while waiting
     */
    public Decision gcra(String key, Duration period, long limit, GcraOptions options) {
        return await(async.gcra(key, period, limit, options));
    }

    /**
     * Deletes the key, whatever its method, and forgets its cached rejections.
     *
     * @param key the Redis key of the limit
     * @return true if a key was removed
     * @throws IllegalArgumentException if {@code key} is null
     * @throws io.winlimit.model.WinlimitException when Redis fails, times out or refuses the call
     *     (no fallback answers a reset), or when interrupted while waiting
     */
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
