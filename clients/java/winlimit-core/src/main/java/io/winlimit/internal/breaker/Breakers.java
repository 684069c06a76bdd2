package io.winlimit.internal.breaker;

import io.winlimit.breaker.CircuitBreaker;
import io.winlimit.breaker.BreakerOptions;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;

/** A limiter's breakers, one per server (per cluster node, by its name; "" for a single
 * server), sharing the options and the listener. */
public final class Breakers {
    private final BreakerOptions options;
    private final DoubleSupplier clock;
    private final CircuitBreaker.Listener listener;
    private final Map<String, CircuitBreaker> byNode = new ConcurrentHashMap<>();

    /**
     * Breakers on this process's monotonic clock.
     *
     * @param options every breaker's options
     * @param listener told of every breaker's transitions
     */
    public Breakers(BreakerOptions options, CircuitBreaker.Listener listener) {
        this(options, () -> System.nanoTime() / 1e6, listener);
    }

    /**
     * Breakers on {@code clock}.
     *
     * @param options every breaker's options
     * @param clock milliseconds, monotonic
     * @param listener told of every breaker's transitions
     */
    public Breakers(BreakerOptions options, DoubleSupplier clock, CircuitBreaker.Listener listener) {
        this.options = options;
        this.clock = clock;
        this.listener = listener;
    }

    /**
     * The breaker of a node.
     *
     * @param node the node's name ("" for a single server)
     * @return its breaker, made closed on first use; thread-safe
     */
    public CircuitBreaker of(String node) {
        // Looked up first: computeIfAbsent's lambda would be an object on every call.
        CircuitBreaker known = byNode.get(node);
        if (known != null) {
            return known;
        }
        return byNode.computeIfAbsent(node, name -> {
            CircuitBreaker breaker = new CircuitBreaker(options, name, clock);
            breaker.listen(listener);
            return breaker;
        });
    }

    /**
     * The state of the breaker furthest from closed (winlimit_breaker_state).
     *
     * @return OPEN, HALF_OPEN or CLOSED (CLOSED with no breaker yet)
     */
    public CircuitBreaker.State worst() {
        CircuitBreaker.State worst = CircuitBreaker.State.CLOSED;
        for (CircuitBreaker b : byNode.values()) {
            if (b.state().value() > worst.value()) {
                worst = b.state();
            }
        }
        return worst;
    }
}
