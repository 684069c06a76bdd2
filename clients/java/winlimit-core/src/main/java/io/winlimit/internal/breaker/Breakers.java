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

    public Breakers(BreakerOptions options, CircuitBreaker.Listener listener) {
        this(options, () -> System.nanoTime() / 1e6, listener);
    }

    public Breakers(BreakerOptions options, DoubleSupplier clock, CircuitBreaker.Listener listener) {
        this.options = options;
        this.clock = clock;
        this.listener = listener;
    }

    /** The breaker of a node. */
    public CircuitBreaker of(String node) {
        return byNode.computeIfAbsent(node, name -> {
            CircuitBreaker breaker = new CircuitBreaker(options, name, clock);
            breaker.listen(listener);
            return breaker;
        });
    }

    /** The state of the breaker furthest from closed (winlimit_breaker_state). */
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
