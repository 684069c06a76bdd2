package io.winlimit.spring.boot.web;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import io.winlimit.Decision;

/**
 * Shadow mode's warnings: one per key per quiet period, not one per request. The quiet period
 * of a key starts when it is warned about and lasts the rejection's retryAfter, or, when no
 * retry can succeed, its binding policy's window; at most {@code keys} keys are remembered, the
 * one warned about longest ago forgotten first (clients/spec/shadow.json). Thread-safe.
 */
public final class ShadowLog {
    /** How many keys the log remembers by default. */
    public static final int DEFAULT_KEYS = 10_000;

    private final int keys;
    private final LongSupplier clockMs;
    /** key -> the clock's time until which it is not warned about again, oldest warning first. */
    private final LinkedHashMap<String, Double> quietUntil = new LinkedHashMap<>();

    public ShadowLog() {
        this(DEFAULT_KEYS, () -> System.nanoTime() / 1_000_000);
    }

    /** A log of at most {@code keys} keys on a clock of milliseconds. */
    public ShadowLog(int keys, LongSupplier clockMs) {
        this.keys = keys;
        this.clockMs = clockMs;
    }

    /** The warning for a rejection of {@code key} that shadow mode let through ({@code rateLimit}:
     * the RateLimit field it was sent), or null while the key's quiet period lasts. */
    public String warning(String key, Decision decision, String rateLimit) {
        return warning(key, decision, rateLimit, clockMs.getAsLong());
    }

    /** As {@link #warning(String, Decision, String)}, at {@code nowMs} of the log's clock. */
    public synchronized String warning(String key, Decision decision, String rateLimit, double nowMs) {
        Double until = quietUntil.get(key);
        if (until != null && nowMs < until) {
            return null;
        }
        quietUntil.remove(key);
        long quietMs = decision.retryAfterMs() > 0 ? decision.retryAfterMs()
                : decision.policy().map(p -> p.windowMs()).orElse(0L);
        quietUntil.put(key, nowMs + quietMs);
        Iterator<Map.Entry<String, Double>> oldest = quietUntil.entrySet().iterator();
        while (quietUntil.size() > keys) {
            oldest.next();
            oldest.remove();
        }
        return "winlimit: shadow mode let through a request over the limit for " + quoted(key) + ": RateLimit: "
                + rateLimit + ", retry after " + decision.retryAfterMs() + " ms";
    }

    /** A key as the log lines show it: a JSON string, as the other clients write it. */
    public static String quoted(String key) {
        StringBuilder out = new StringBuilder(key.length() + 2).append('"');
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
