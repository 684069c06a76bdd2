package io.winlimit.internal.http;

import io.winlimit.model.Decision;
import io.winlimit.internal.text.Json;
import io.winlimit.model.Policy;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * Shadow mode's warnings: one per key per quiet period, not one per request. The rules are the
 * clients' shared ones (clients/spec/shadow.json). Thread-safe.
 */
public final class ShadowLog {
    /** How many keys the log remembers by default. */
    public static final int DEFAULT_KEYS = 10_000;

    private final int keys;
    private final DoubleSupplier clock;
    // key -> the clock's time until which it is not warned about again; insertion order, so the
    // first key is the one warned about longest ago, forgotten first.
    private final Map<String, Double> quietUntil = new LinkedHashMap<>();
    private long counted;

    /** A log of the default number of keys on this process's monotonic clock. */
    public ShadowLog() {
        this(DEFAULT_KEYS, () -> System.nanoTime() / 1e6);
    }

    /**
     * A log of at most {@code keys} keys on {@code clock}, in ms.
     *
     * @param keys the most keys kept quiet at once, the oldest forgotten first
     * @param clock milliseconds, monotonic
     */
    public ShadowLog(int keys, DoubleSupplier clock) {
        if (keys < 1) {
            throw new IllegalArgumentException("shadow log keys must be at least 1, not " + keys);
        }
        this.keys = keys;
        this.clock = clock;
    }

    /**
     * Shadow mode's answer to {@code decision} for {@code key}: nothing for an acceptance; for a
     * rejection (which the caller lets through), counted, and the warning to log, or null while
     * the key's quiet period lasts. The warning quotes the draft-11 RateLimit field.
     *
     * @param key the limit's key
     * @param decision the decision shadow mode overrides
     * @return the warning to log, or null
     */
    public String record(String key, Decision decision) {
        if (decision.allowed()) {
            return null;
        }
        synchronized (this) {
            counted++;
        }
        return warning(key, decision, decision.headers().get("RateLimit"));
    }

    /**
     * How many rejections {@link #record} let through.
     *
     * @return the count since the log was made
     */
    public synchronized long counted() {
        return counted;
    }

    /**
     * The warning for a rejection of {@code key} that shadow mode let through ({@code rateLimit},
     * the RateLimit field it was sent), or null while the key's quiet period lasts. The period
     * is the rejection's retryAfter, or, when no retry can succeed, its binding policy's window.
     *
     * @param key the limit's key
     * @param decision the rejection
     * @param rateLimit the RateLimit field sent with the response
     * @return the warning, or null
     */
    public synchronized String warning(String key, Decision decision, String rateLimit) {
        double now = clock.getAsDouble();
        Double until = quietUntil.get(key);
        if (until != null && now < until) {
            return null;
        }
        quietUntil.remove(key);
        long quietMs = decision.retryAfterMs() > 0 ? decision.retryAfterMs() : decision.policy().map(Policy::windowMs).orElse(0L);
        quietUntil.put(key, now + quietMs);
        Iterator<String> oldest = quietUntil.keySet().iterator();
        while (quietUntil.size() > keys && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
        return "winlimit: shadow mode let through a request over the limit for " + Json.quote(key) + ": RateLimit: "
                + rateLimit + ", retry after " + decision.retryAfterMs() + " ms";
    }

    /**
     * The fields a response let through in shadow mode gets: the decision's, less Retry-After.
     *
     * @param fields the decision's fields
     * @return the fields, Retry-After removed
     */
    public static Map<String, String> shadowFields(Map<String, String> fields) {
        Map<String, String> out = new LinkedHashMap<>(fields);
        out.remove("Retry-After");
        return out;
    }
}
