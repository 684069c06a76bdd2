package io.winlimit.spring.boot.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.winlimit.model.Backend;
import io.winlimit.model.Decision;
import io.winlimit.spring.boot.WinlimitMeters;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * winlimit's meters on the application's registry, named as the other clients' Prometheus
 * metrics (a Prometheus registry writes the same names):
 *
 * <ul>
 *   <li>{@code winlimit.decisions} (counter; {@code winlimit_decisions_total}) by {@code policy}
 *       and {@code outcome}: allowed, rejected, shadow_rejected, cached, fallback or error;</li>
 *   <li>{@code winlimit.call} (timer; {@code winlimit_call_seconds}) by {@code backend}
 *       ("redis"): the time of each call to Redis;</li>
 *   <li>{@code winlimit.breaker.state} (gauge) by {@code limiter}: 0 closed, 1 half-open, 2 open;
 *       {@code winlimit.breaker.transitions} (counter) by {@code limiter}, {@code to} and
 *       {@code cause} (failures, open_elapsed, probe_failed, probe_succeeded);</li>
 *   <li>{@code winlimit.lowest.remaining} (gauge; {@code winlimit_lowest_remaining}) by
 *       {@code policy}: the lowest remaining seen since the gauge was last read.</li>
 * </ul>
 *
 * The policy is the name under winlimit.policies; a key is never a tag (unbounded tags
 * exhaust the heap).
 */
public final class MicrometerWinlimitMeters implements WinlimitMeters {
    private final MeterRegistry registry;
    private final Timer callTime;
    private final Map<String, AtomicLong> lowest = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Integer>> breakerStates = new ConcurrentHashMap<>();
    // Each meter built and registered once, on its first use, then only incremented (as
    // resilience4j's TaggedRateLimiterMetrics binds its meters once): a decision allocates none.
    private final Map<List<String>, Counter> decisions = new ConcurrentHashMap<>();
    private final Map<List<String>, Counter> transitions = new ConcurrentHashMap<>();

    /**
     * Meters in {@code registry}; the call timer is registered now, the others on first use.
     *
     * @param registry the application's registry
     */
    public MicrometerWinlimitMeters(MeterRegistry registry) {
        this.registry = registry;
        this.callTime = Timer.builder("winlimit.call").description("The time of each call to the backend")
                .tag("backend", "redis").register(registry);
    }

    @Override
    public void decided(String policy, Decision decision, boolean shadowRejected, long nanos) {
        count(policy, outcome(decision, shadowRejected));
        if (decision.backend() != Backend.MEMORY && !decision.cached()) {
            callTime.record(nanos, TimeUnit.NANOSECONDS);
        }
        lowest.computeIfAbsent(policy, this::gauge).accumulateAndGet(decision.remaining(), Math::min);
    }

    @Override
    public void breakerChanged(String limiter, String node, int state, String to, String cause) {
        transitions.computeIfAbsent(List.of(limiter, to, cause), tags -> Counter.builder("winlimit.breaker.transitions")
                .description("The circuit breaker's changes of state")
                .tag("limiter", limiter).tag("to", to).tag("cause", cause).register(registry)).increment();
        breakerStates.computeIfAbsent(limiter, this::breakerGauge).put(node, state);
    }

    /** Of a cluster's several breakers, the one furthest from closed. */
    private Map<String, Integer> breakerGauge(String limiter) {
        Map<String, Integer> nodes = new ConcurrentHashMap<>();
        Gauge.builder("winlimit.breaker.state", nodes, n -> n.values().stream().mapToInt(Integer::intValue).max().orElse(0))
                .description("The circuit breaker: 0 closed, 1 half-open, 2 open").tag("limiter", limiter)
                .strongReference(true).register(registry);
        return nodes;
    }

    @Override
    public void failed(String policy) {
        count(policy, "error");
    }

    private static String outcome(Decision decision, boolean shadowRejected) {
        if (decision.backend() == Backend.MEMORY) {
            return "fallback"; // decided in this process while Redis failed
        }
        if (decision.allowed()) {
            return "allowed";
        }
        if (shadowRejected) {
            return "shadow_rejected";
        }
        return decision.cached() ? "cached" : "rejected";
    }

    private void count(String policy, String outcome) {
        decisions.computeIfAbsent(List.of(policy, outcome), tags -> Counter.builder("winlimit.decisions")
                .description("Rate-limit decisions by policy and outcome")
                .tag("policy", policy).tag("outcome", outcome).register(registry)).increment();
    }

    /** A gauge that forgets on read: the lowest remaining since the last read (NaN: none seen). */
    private AtomicLong gauge(String policy) {
        AtomicLong seen = new AtomicLong(Long.MAX_VALUE);
        Gauge.builder("winlimit.lowest.remaining", seen, s -> {
            long value = s.getAndSet(Long.MAX_VALUE);
            return value == Long.MAX_VALUE ? Double.NaN : value;
        }).description("The lowest remaining seen per policy since the last scrape").tag("policy", policy)
                .strongReference(true).register(registry);
        return seen;
    }
}
