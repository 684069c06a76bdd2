package io.winlimit;

import io.winlimit.internal.RejectionCache;
import io.winlimit.internal.breaker.Breakers;
import io.winlimit.breaker.CircuitBreaker;
import io.winlimit.internal.breaker.Failures;
import io.winlimit.internal.library.Backends;
import io.winlimit.internal.text.Args;
import io.winlimit.model.Backend;
import io.winlimit.model.BreakerOpenException;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.model.RedisUnavailableException;
import io.winlimit.model.SlideOptions;
import io.winlimit.model.Window;
import io.winlimit.model.WinlimitException;
import io.winlimit.internal.protocol.Call;
import io.winlimit.internal.protocol.Commands;
import io.winlimit.internal.protocol.Replies;
import io.winlimit.spi.RedisCommand;
import io.winlimit.spi.RedisExecutor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The limiter, asynchronous: one method per winlimit command, each completing with a
 * {@link Decision}. {@link Limiter} (blocking) and {@link ReactiveLimiter} ({@code Mono}) are
 * views of it. Thread-safe; make one per application and Redis client.
 *
 * <p>Bad arguments throw IllegalArgumentException at once, before anything is sent. A failed
 * Redis call completes exceptionally with a {@link WinlimitException}:
 * {@link RedisUnavailableException} (no connection, or no answer within the timeout: the
 * command is cancelled and never sent later), {@link io.winlimit.model.RedisServerException} with the server's
 * text, {@link io.winlimit.model.ModuleNotLoadedException}, {@link io.winlimit.model.MissingPermissionException}.
 */
public final class AsyncLimiter {
    private final RedisExecutor executor;
    private final LimiterConfig config;
    private final Commands.Defaults defaults;
    private final Backends backends;
    private final RejectionCache cache;
    private final LimiterListener listener;
    private final Breakers breakers;
    private final Fallback fallback;
    private final long timeoutMs;
    // The options of the methods without them: immutable, so shared rather than made per call.
    private static final SlideOptions NO_SLIDE_OPTIONS = SlideOptions.defaults();
    private static final FixedOptions NO_FIXED_OPTIONS = FixedOptions.defaults();
    private static final GcraOptions NO_GCRA_OPTIONS = GcraOptions.defaults();
    private static final System.Logger LOG = System.getLogger("winlimit");

    /**
     * A limiter over an executor (see the Lettuce, Jedis and Spring Data Redis adapters).
     *
     * @param executor the Redis client the commands go through
     * @param config the limiter's settings
     */
    public AsyncLimiter(RedisExecutor executor, LimiterConfig config) {
        this(executor, config, LimiterListener.NONE);
    }

    /**
     * A limiter that reports each decision, fallback and breaker change to a listener.
     *
     * @param executor the Redis client the commands go through
     * @param config the limiter's settings
     * @param listener told of every decision (metrics); {@link LimiterListener#NONE} for none
     */
    public AsyncLimiter(RedisExecutor executor, LimiterConfig config, LimiterListener listener) {
        if (executor == null || config == null || listener == null) {
            throw new IllegalArgumentException("the executor, config and listener must not be null");
        }
        this.executor = executor;
        this.config = config;
        this.listener = listener;
        this.defaults = new Commands.Defaults(config.name(), config.blockMs());
        this.timeoutMs = config.timeout().toMillis();
        this.cache = config.cacheRejections() ? new RejectionCache(config.cacheSize()) : null;
        this.fallback = config.fallback().orElse(null);
        this.breakers = new Breakers(config.breaker(), config.breakerClock(), this::breakerChanged);
        this.backends = new Backends(config.backend(), new Backends.Sender() {
            @Override
            public CompletableFuture<Object> send(RedisCommand command) {
                return AsyncLimiter.this.send(command);
            }

            @Override
            public String nodeOf(byte[] key) {
                return AsyncLimiter.this.nodeOf(key);
            }
        });
    }

    /**
     * The blocking view of this limiter.
     *
     * @return a {@link Limiter} sharing this limiter's state
     */
    public Limiter sync() {
        return new Limiter(this);
    }

    /**
     * The Reactor view; IllegalStateException over a blocking client (Jedis).
     *
     * @return a {@link ReactiveLimiter} sharing this limiter's state
     */
    public ReactiveLimiter reactive() {
        if (!executor.nonBlocking()) {
            throw new IllegalStateException(executor.describe() + " blocks the calling thread, so it has no reactive view: "
                    + "use Lettuce or a ReactiveRedisConnectionFactory for WebFlux and Spring Cloud Gateway");
        }
        return new ReactiveLimiter(this);
    }

    /**
     * The settings this limiter was made with.
     *
     * @return its configuration
     */
    public LimiterConfig config() {
        return config;
    }

    /**
     * The executor this limiter sends through.
     *
     * @return its executor
     */
    public RedisExecutor executor() {
        return executor;
    }

    /**
     * A sliding window: at most {@code limit} units per {@code window}.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @return completes with the decision, or exceptionally with a WinlimitException
     */
    public CompletionStage<Decision> slide(String key, Duration window, long limit) {
        return slide(key, List.of(Window.of(window, limit)), NO_SLIDE_OPTIONS);
    }

    /**
     * A sliding window with options (units, BLOCK, PEEK, NAME).
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @param options the call's options
     * @return completes with the decision, or exceptionally with a WinlimitException
     */
    public CompletionStage<Decision> slide(String key, Duration window, long limit, SlideOptions options) {
        return slide(key, List.of(Window.of(window, limit)), options);
    }

    /**
     * Several windows at once: accepted iff every window has room, then recorded once.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param windows the windows, each a length and a limit
     * @return completes with the decision, or exceptionally with a WinlimitException
     */
    public CompletionStage<Decision> slide(String key, List<Window> windows) {
        return slide(key, windows, NO_SLIDE_OPTIONS);
    }

    /**
     * Several windows at once, with options (units, BLOCK, PEEK, NAME).
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param windows the windows, each a length and a limit
     * @param options the call's options
     * @return completes with the decision, or exceptionally with a WinlimitException
     */
    public CompletionStage<Decision> slide(String key, List<Window> windows, SlideOptions options) {
        return decide(Commands.slide(defaults, key, windows, options));
    }

    /**
     * A fixed-window counter: at most {@code limit} units per {@code window}.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @return completes with the decision, or exceptionally with a WinlimitException
     */
    public CompletionStage<Decision> fixed(String key, Duration window, long limit) {
        return fixed(key, window, limit, NO_FIXED_OPTIONS);
    }

    /**
     * A fixed-window counter with options (units, BLOCK, PEEK, NAME).
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @param options the call's options
     * @return completes with the decision, or exceptionally with a WinlimitException
     */
    public CompletionStage<Decision> fixed(String key, Duration window, long limit, FixedOptions options) {
        return decide(Commands.fixed(defaults, key, Args.millis("window", window), limit, options));
    }

    /**
     * A token bucket (GCRA): {@code limit} units per {@code period}, bursts up to BURST.
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param period the period the limit refills over, in whole milliseconds
     * @param limit the units per period
     * @return completes with the decision, or exceptionally with a WinlimitException
     */
    public CompletionStage<Decision> gcra(String key, Duration period, long limit) {
        return gcra(key, period, limit, NO_GCRA_OPTIONS);
    }

    /**
     * A token bucket (GCRA) with options (units, BURST, BLOCK, PEEK, NAME).
     *
     * @param key the Redis key of the limit (a hash tag keeps related keys on one cluster node)
     * @param period the period the limit refills over, in whole milliseconds
     * @param limit the units per period
     * @param options the call's options
     * @return completes with the decision, or exceptionally with a WinlimitException
     */
    public CompletionStage<Decision> gcra(String key, Duration period, long limit, GcraOptions options) {
        return decide(Commands.gcra(defaults, key, Args.millis("period", period), limit, options));
    }

    /**
     * Deletes the key, whatever its method, and forgets every cached rejection for it.
     *
     * @param key the Redis key of the limit
     * @return completes with true if a key was removed
     */
    public CompletionStage<Boolean> reset(String key) {
        if (key == null) {
            throw new IllegalArgumentException("the key must be a string, not null");
        }
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        RedisCommand del = new RedisCommand(List.of("DEL".getBytes(StandardCharsets.UTF_8), bytes), bytes, 1);
        return send(del).thenApply(removed -> {
            if (cache != null) {
                cache.forget(key);
            }
            return removed instanceof Long n && n > 0;
        });
    }

    /** The name and block every call of this limiter carries unless it sets its own. */
    Commands.Defaults defaults() {
        return defaults;
    }

    /** Answers a call built by {@link Commands}: from the rejection cache, else from Redis; with
     * a wait, again while rejected until accepted or out of time. */
    CompletionStage<Decision> decide(Call call) {
        if (call.waitMs() < 0) {
            return once(call);
        }
        return waiting(call, System.nanoTime() + call.waitMs() * 1_000_000L, 0);
    }

    /** Asks again while rejected, sleeping each retryAfter, until accepted or until the next
     * sleep would end past the deadline; {@code sleptNanos}: the sleeps so far. */
    private CompletableFuture<Decision> waiting(Call call, long deadline, long sleptNanos) {
        return once(call).thenCompose(decision -> {
            // -1: the request can never fit, so waiting would not help.
            if (decision.allowed() || decision.retryAfterMs() <= 0
                    || System.nanoTime() + decision.retryAfterMs() * 1_000_000L > deadline) {
                return CompletableFuture.completedFuture(decision.withWaited(Math.round(sleptNanos / 1e6)));
            }
            long start = System.nanoTime();
            return Timeouts.sleep(decision.retryAfterMs())
                    .thenCompose(v -> waiting(call, deadline, sleptNanos + System.nanoTime() - start));
        });
    }

    private CompletableFuture<Decision> once(Call call) {
        String policy = call.policies().get(0).name();
        Decision cached = cache == null ? null : cache.answer(call);
        if (cached != null) {
            listener.decided(policy, cached, 0);
            return CompletableFuture.completedFuture(cached);
        }
        CompletableFuture<Void> connecting = executor.connecting();
        if (connecting != null) {
            // The client's first connection, made off this thread (an event loop, maybe): the
            // call goes once it is made or has failed; a failure is then the call's own.
            return connecting.handle((connected, error) -> call).thenCompose(c -> sent(c, policy));
        }
        return sent(call, policy);
    }

    /** {@link #once} past the cache and the connection: the breaker, then Redis. */
    private CompletableFuture<Decision> sent(Call call, String policy) {
        CircuitBreaker breaker = breakers.of(nodeOf(call.keyBytes()));
        CircuitBreaker.Action action = breaker.admit();
        if (action == CircuitBreaker.Action.REFUSE) {
            return refused(call, policy, breaker);
        }
        Deciding deciding = new Deciding(this, call, policy, breaker, action);
        // The common case, a node known to serve the module: the call's own object sends the
        // line, with no stage between; otherwise the backends detect, load or choose first.
        RedisCommand direct = backends.direct(call);
        if (direct != null) {
            deciding.start(executor, direct, timeoutMs);
        } else {
            backends.answer(call).whenComplete(deciding::answered);
        }
        return deciding;
    }

    /** A reply's decision: the breaker told of the success, the decision remembered (rejection
     * cache) and reported. */
    Decision decided(Deciding d, Object reply, Backend backend) {
        d.breaker.done(d.action, false);
        Decision decision = Replies.decision(reply, d.call.policies(), backend);
        if (cache != null) {
            cache.remember(d.call, decision);
        }
        listener.decided(d.policy, decision, System.nanoTime() - d.started);
        return decision;
    }

    /** A failed call: the breaker told (if the error counts), the failure reported; then the
     * fallback's decision, or the error thrown. */
    Decision failed(Deciding d, Throwable error) {
        Throwable cause = Backends.cause(error);
        boolean counted = Failures.counts(cause);
        d.breaker.done(d.action, counted);
        listener.failed(d.policy, cause);
        if (counted && fallback != null) {
            return fromFallback(d.call, d.policy);
        }
        throw new CompletionException(cause);
    }

    Backends backends() {
        return backends;
    }

    /** A call while the breaker is open: the fallback's decision, or at once BreakerOpenException. */
    private CompletableFuture<Decision> refused(Call call, String policy, CircuitBreaker breaker) {
        if (fallback != null) {
            try {
                return CompletableFuture.completedFuture(fromFallback(call, policy));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        BreakerOpenException open = new BreakerOpenException(config.name(), breaker.node(), (long) Math.ceil(breaker.openForMs()));
        return CompletableFuture.failedFuture(open);
    }

    private Decision fromFallback(Call call, String policy) {
        long started = System.nanoTime();
        Decision decision = fallback.decide(call.args(), call.policies());
        listener.decided(policy, decision, System.nanoTime() - started);
        return decision;
    }

    private void breakerChanged(CircuitBreaker breaker, CircuitBreaker.Transition t) {
        String where = breaker.node().isEmpty() ? "" : " for node " + breaker.node();
        if (t.to() == CircuitBreaker.State.OPEN && t.cause().equals("failures")) {
            LOG.log(System.Logger.Level.WARNING, "winlimit: Redis failed " + config.breaker().failures() + " times in a row"
                    + where + "; the circuit breaker of limiter \"" + config.name() + "\" is open: "
                    + (fallback != null ? "the fallback decides" : "calls fail at once") + " until a probe succeeds");
        } else if (t.to() == CircuitBreaker.State.CLOSED) {
            LOG.log(System.Logger.Level.INFO, "winlimit: Redis answers again" + where + "; the circuit breaker of limiter \""
                    + config.name() + "\" is closed");
        }
        listener.breakerChanged(breaker, t);
    }

    /** The node serving {@code key}; "" when the executor cannot tell now (a single server,
     * or a failing connection: then the call itself fails). */
    private String nodeOf(byte[] key) {
        try {
            return executor.nodeOf(key);
        } catch (RuntimeException e) {
            return "";
        }
    }

    /**
     * The state of the breaker furthest from closed, over every node.
     *
     * @return OPEN if any node's breaker is open, else HALF_OPEN if any is, else CLOSED
     */
    public CircuitBreaker.State breakerState() {
        return breakers.worst();
    }

    /** One command through the executor, within the timeout. */
    CompletableFuture<Object> send(RedisCommand command) {
        return new TimedSend.Relay().start(executor, command, timeoutMs);
    }
}
