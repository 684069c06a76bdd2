package io.winlimit.breaker;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoubleSupplier;

/**
 * One server's circuit breaker (per cluster node): after {@code failures} consecutive failures
 * it opens and no call is sent for the open period; then one probe goes to Redis, and its
 * answer closes the breaker or opens it again for twice as long, up to maxOpen. The rules,
 * shared by every client, are in clients/spec/breaker.json.
 *
 * <p>Pure state on a clock: the limiter asks {@link #admit} before sending and reports the
 * outcome with {@link #done}. Both are atomic, so exactly one probe goes out whatever the
 * concurrency.
 */
public final class CircuitBreaker {
    /** The breaker's states; {@link #value()} is winlimit_breaker_state's. */
    public enum State {
        /** Calls are sent. */
        CLOSED("closed", 0),
        /** One probe is out; other calls are refused until its answer. */
        HALF_OPEN("half_open", 1),
        /** No call is sent until the open period ends. */
        OPEN("open", 2);

        private final String label;
        private final int value;

        State(String label, int value) {
            this.label = label;
            this.value = value;
        }

        /**
         * The state's name in metrics and logs.
         *
         * @return "closed", "half_open" or "open"
         */
        public String label() {
            return label;
        }

        /**
         * The state as winlimit_breaker_state's gauge has it.
         *
         * @return 0 closed, 1 half open, 2 open
         */
        public int value() {
            return value;
        }
    }

    /** What to do with a call: send it, send it as the probe, or answer it as open. */
    public enum Action {
        /** Send the call: the breaker is closed (or off). */
        SEND,
        /** Send the call as the one probe of a half-open breaker. */
        PROBE,
        /** Do not send: answer the call as open (the fallback, or BreakerOpenException). */
        REFUSE
    }

    /** A state change: to which state, and why ("failures", "open_elapsed", "probe_failed",
     * "probe_succeeded": winlimit_breaker_transitions_total's cause). */
    public record Transition(String node, State to, String cause) {}

    /** Hears every transition, after it happened. */
    public interface Listener {
        /**
         * A transition happened, told on the thread that caused it, outside the breaker's lock.
         *
         * @param breaker the breaker that changed
         * @param transition its new state and why
         */
        void changed(CircuitBreaker breaker, Transition transition);
    }

    private final BreakerOptions options;
    private final String node;
    private final DoubleSupplier clock;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private State state = State.CLOSED;
    private int count;
    private long periodMs;
    private double openUntilMs;

    /**
     * A closed breaker.
     *
     * @param options the thresholds and open periods
     * @param node the node it guards, as the executor names it ("" for a single server), for
     *     metrics and messages
     * @param clock milliseconds, monotonic
     */
    public CircuitBreaker(BreakerOptions options, String node, DoubleSupplier clock) {
        this.options = options;
        this.node = node;
        this.clock = clock;
    }

    /**
     * Adds a listener of every later transition; thread-safe.
     *
     * @param listener the listener
     */
    public void listen(Listener listener) {
        listeners.add(listener);
    }

    /**
     * The server this breaker guards.
     *
     * @return its name, as the executor gives it ("" for a single server)
     */
    public String node() {
        return node;
    }

    /**
     * The state now (OPEN stays OPEN past its period until a call is admitted).
     *
     * @return the state
     */
    public synchronized State state() {
        return state;
    }

    /**
     * When the open period ends, on the breaker's clock (ms); meaningful while open.
     *
     * @return milliseconds on the breaker's clock
     */
    public synchronized double openUntilMs() {
        return openUntilMs;
    }

    /**
     * How long the breaker stays open from now (0 when it is not open).
     *
     * @return milliseconds, 0 or more
     */
    public synchronized double openForMs() {
        return state == State.OPEN ? Math.max(0, openUntilMs - clock.getAsDouble()) : 0;
    }

    /**
     * What to do with a call arriving now; atomic, so one caller only gets the probe.
     *
     * @return SEND, PROBE or REFUSE; every SEND or PROBE must be followed by {@link #done} or
     *     {@link #abandon}
     */
    public Action admit() {
        if (!options.enabled()) {
            return Action.SEND;
        }
        synchronized (this) {
            if (state == State.CLOSED) {
                return Action.SEND;
            }
            if (state == State.HALF_OPEN || clock.getAsDouble() < openUntilMs) {
                return Action.REFUSE;
            }
            state = State.HALF_OPEN;
        }
        tell(new Transition(node, State.HALF_OPEN, "open_elapsed"));
        return Action.PROBE;
    }

    /**
     * The end of a call admitted as {@code action}.
     *
     * @param action what {@link #admit} answered for the call
     * @param failed true when it failed in a way that counts (a connection error, a timeout or a
     *     reply of clients/spec/breaker.json), false for an answer or the caller's error
     */
    public void done(Action action, boolean failed) {
        if (!options.enabled() || action == Action.REFUSE) {
            return;
        }
        Transition change;
        synchronized (this) {
            change = settle(action == Action.PROBE, failed);
        }
        if (change != null) {
            tell(change);
        }
    }

    /**
     * A probe cancelled before its end: nothing is learnt; its place goes to the next call.
     *
     * @param action what {@link #admit} answered for the call (only a PROBE changes anything)
     */
    public synchronized void abandon(Action action) {
        if (action == Action.PROBE && state == State.HALF_OPEN) {
            state = State.OPEN;
        }
    }

    private Transition settle(boolean probe, boolean failed) {
        if (probe && state == State.HALF_OPEN) {
            if (failed) {
                return open(Math.min(periodMs * 2, options.maxOpenMs()), "probe_failed");
            }
            state = State.CLOSED;
            count = 0;
            periodMs = 0;
            return new Transition(node, State.CLOSED, "probe_succeeded");
        }
        if (state != State.CLOSED) {
            return null; // sent before the breaker opened: changes nothing now
        }
        if (!failed) {
            count = 0;
            return null;
        }
        count++;
        return count < options.failures() ? null : open(options.openMs(), "failures");
    }

    private Transition open(long period, String cause) {
        state = State.OPEN;
        count = 0;
        periodMs = period;
        openUntilMs = clock.getAsDouble() + period;
        return new Transition(node, State.OPEN, cause);
    }

    private void tell(Transition transition) {
        for (Listener listener : listeners) {
            listener.changed(this, transition);
        }
    }
}
