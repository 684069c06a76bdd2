package io.winlimit;

import io.winlimit.model.Args;
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

    public AsyncLimiter async() {
        return async;
    }

    public Mono<Decision> slide(String key, Duration window, long limit) {
        return slide(key, List.of(Window.of(window, limit)), SlideOptions.defaults());
    }

    public Mono<Decision> slide(String key, Duration window, long limit, SlideOptions options) {
        return slide(key, List.of(Window.of(window, limit)), options);
    }

    public Mono<Decision> slide(String key, List<Window> windows) {
        return slide(key, windows, SlideOptions.defaults());
    }

    public Mono<Decision> slide(String key, List<Window> windows, SlideOptions options) {
        Call call = io.winlimit.internal.protocol.Commands.slide(defaults(), key, windows, options);
        return lazily(() -> async.decide(call).toCompletableFuture());
    }

    public Mono<Decision> fixed(String key, Duration window, long limit) {
        return fixed(key, window, limit, FixedOptions.defaults());
    }

    public Mono<Decision> fixed(String key, Duration window, long limit, FixedOptions options) {
        Call call = io.winlimit.internal.protocol.Commands.fixed(defaults(), key, Args.millis("window", window), limit, options);
        return lazily(() -> async.decide(call).toCompletableFuture());
    }

    public Mono<Decision> gcra(String key, Duration period, long limit) {
        return gcra(key, period, limit, GcraOptions.defaults());
    }

    public Mono<Decision> gcra(String key, Duration period, long limit, GcraOptions options) {
        Call call = io.winlimit.internal.protocol.Commands.gcra(defaults(), key, Args.millis("period", period), limit, options);
        return lazily(() -> async.decide(call).toCompletableFuture());
    }

    public Mono<Boolean> reset(String key) {
        if (key == null) {
            throw new IllegalArgumentException("the key must be a string, not null");
        }
        return lazily(() -> async.reset(key).toCompletableFuture());
    }


    private io.winlimit.internal.protocol.Commands.Defaults defaults() {
        return new io.winlimit.internal.protocol.Commands.Defaults(async.config().name(), async.config().blockMs());
    }

    private static <T> Mono<T> lazily(Supplier<java.util.concurrent.CompletableFuture<T>> start) {
        return Mono.defer(() -> Mono.fromFuture(start.get()));
    }
}
