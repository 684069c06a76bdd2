package io.winlimit;

import io.winlimit.internal.text.Args;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.model.SlideOptions;
import io.winlimit.model.Window;
import io.winlimit.internal.protocol.Call;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * The limiter, reactive: each method returns a {@code Mono<Decision>} that sends nothing until
 * it is subscribed, and sends again on each subscription. A view of an {@link AsyncLimiter}
 * over a non-blocking client (Lettuce, a ReactiveRedisConnectionFactory). Bad arguments throw
 * IllegalArgumentException at once, when the Mono is made.
 */
public final class ReactiveLimiter {
    private final AsyncLimiter async;

    ReactiveLimiter(AsyncLimiter async) {
        this.async = async;
    }

    /**
     * The asynchronous limiter this is a view of.
     *
     * @return the limiter whose calls this one subscribes to
     */
    public AsyncLimiter async() {
        return async;
    }

    /**
     * A sliding window: at most {@code limit} units per {@code window}.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @return a Mono of the decision, sending the call on each subscription; it errors with a
     *     WinlimitException when Redis fails and no fallback decides
     */
    public Mono<Decision> slide(String key, Duration window, long limit) {
        return slide(key, List.of(Window.of(window, limit)), SlideOptions.defaults());
    }

    /**
     * A sliding window with options (units, BUCKET, BLOCK, PEEK, NAME).
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @param options the call's options
     * @return a Mono of the decision, sending the call on each subscription; it errors with a
     *     WinlimitException when Redis fails and no fallback decides
     */
    public Mono<Decision> slide(String key, Duration window, long limit, SlideOptions options) {
        return slide(key, List.of(Window.of(window, limit)), options);
    }

    /**
     * Several windows at once: accepted iff every window has room, then recorded once.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param windows the windows, each with its limit (at least one)
     * @return a Mono of the decision, sending the call on each subscription; it errors with a
     *     WinlimitException when Redis fails and no fallback decides
     */
    public Mono<Decision> slide(String key, List<Window> windows) {
        return slide(key, windows, SlideOptions.defaults());
    }

    /**
     * Several windows at once, with options.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param windows the windows, each with its limit (at least one)
     * @param options the call's options
     * @return a Mono of the decision, sending the call on each subscription; it errors with a
     *     WinlimitException when Redis fails and no fallback decides
     */
    public Mono<Decision> slide(String key, List<Window> windows, SlideOptions options) {
        Call call = io.winlimit.internal.protocol.Commands.slide(defaults(), key, windows, options);
        return lazily(() -> async.decide(call).toCompletableFuture());
    }

    /**
     * A fixed-window counter: at most {@code limit} units per {@code window}.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @return a Mono of the decision, sending the call on each subscription; it errors with a
     *     WinlimitException when Redis fails and no fallback decides
     */
    public Mono<Decision> fixed(String key, Duration window, long limit) {
        return fixed(key, window, limit, FixedOptions.defaults());
    }

    /**
     * A fixed-window counter with options (units, ALIGN, BLOCK, PEEK, NAME).
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @param options the call's options
     * @return a Mono of the decision, sending the call on each subscription; it errors with a
     *     WinlimitException when Redis fails and no fallback decides
     */
    public Mono<Decision> fixed(String key, Duration window, long limit, FixedOptions options) {
        Call call = io.winlimit.internal.protocol.Commands.fixed(defaults(), key, Args.millis("window", window), limit, options);
        return lazily(() -> async.decide(call).toCompletableFuture());
    }

    /**
     * A token bucket (GCRA): {@code limit} units per {@code period}.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param period the period the limit refills over, in whole milliseconds
     * @param limit the units per period
     * @return a Mono of the decision, sending the call on each subscription; it errors with a
     *     WinlimitException when Redis fails and no fallback decides
     */
    public Mono<Decision> gcra(String key, Duration period, long limit) {
        return gcra(key, period, limit, GcraOptions.defaults());
    }

    /**
     * A token bucket (GCRA) with options (units, BURST, BLOCK, PEEK, NAME).
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param period the period the limit refills over, in whole milliseconds
     * @param limit the units per period
     * @param options the call's options
     * @return a Mono of the decision, sending the call on each subscription; it errors with a
     *     WinlimitException when Redis fails and no fallback decides
     */
    public Mono<Decision> gcra(String key, Duration period, long limit, GcraOptions options) {
        Call call = io.winlimit.internal.protocol.Commands.gcra(defaults(), key, Args.millis("period", period), limit, options);
        return lazily(() -> async.decide(call).toCompletableFuture());
    }

    /**
     * Deletes the key, whatever its method, and forgets its cached rejections.
     *
     * @param key the Redis key of the limit
     * @return a Mono of true if a key was removed, sending the call on each subscription
     * @throws IllegalArgumentException if {@code key} is null
     */
    public Mono<Boolean> reset(String key) {
        if (key == null) {
            throw new IllegalArgumentException("the key must be a string, not null");
        }
        return lazily(() -> async.reset(key).toCompletableFuture());
    }


    /** The limiter's name and block, made once with it: not per call. */
    private io.winlimit.internal.protocol.Commands.Defaults defaults() {
        return async.defaults();
    }

    private static <T> Mono<T> lazily(Supplier<java.util.concurrent.CompletableFuture<T>> start) {
        return Mono.defer(() -> Mono.fromFuture(start.get()));
    }
}
