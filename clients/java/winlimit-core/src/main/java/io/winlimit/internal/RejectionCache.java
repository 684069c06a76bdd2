package io.winlimit.internal;

import io.winlimit.model.Decision;
import io.winlimit.internal.protocol.Call;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * Rejections answered locally ({@code cacheRejections}). A rejected call records nothing, and
 * no call from anyone can make the same request acceptable before its retryAfter: until then,
 * the same command line gets the same answer without a round trip. The one thing it gets
 * wrong: a key deleted, reset or evicted by someone else is still refused until the entry ends.
 * The rules are the clients' shared ones (clients/spec/cache.json). Thread-safe.
 */
public final class RejectionCache {
    private record Entry(Decision decision, String key, double at) {}

    private final int size;
    private final DoubleSupplier clock;
    // Insertion order: the first entry is the oldest, dropped first.
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private int keptSinceSweep;

    /**
     * A cache of at most {@code size} command lines on this process's monotonic clock.
     *
     * @param size the most entries kept, the oldest dropped first
     */
    public RejectionCache(int size) {
        this(size, () -> System.nanoTime() / 1e6);
    }

    /**
     * A cache on {@code clock}, in ms (fractions allowed).
     *
     * @param size the most entries kept, the oldest dropped first
     * @param clock milliseconds, monotonic
     */
    public RejectionCache(int size, DoubleSupplier clock) {
        if (size < 1) {
            throw new IllegalArgumentException("cacheSize must be at least 1, not " + size);
        }
        this.size = size;
        this.clock = clock;
    }

    /**
     * How many entries the cache holds.
     *
     * @return the number of entries
     */
    public synchronized int held() {
        return entries.size();
    }

    /**
     * A decision for {@code call} from a rejection still in force, or null. Peeks and refunds
     * never are.
     *
     * @param call the call about to be sent
     * @return a cached decision with the wait left now, or null to send the call
     */
    public synchronized Decision answer(Call call) {
        if (call.peek() || call.refund()) {
            return null;
        }
        Entry entry = entries.get(call.line());
        if (entry == null) {
            return null;
        }
        double elapsed = clock.getAsDouble() - entry.at();
        Decision d = entry.decision();
        if (elapsed >= d.retryAfterMs()) {
            entries.remove(call.line());
            return null;
        }
        // The whole ms elapsed, rounded down: a cached answer never says to come back earlier
        // than the server would.
        long whole = (long) Math.floor(elapsed);
        return d.asCached(Math.max(1, d.retryAfterMs() - whole), Math.max(0, d.resetAfterMs() - whole));
    }

    /**
     * Keep {@code decision}, the server's reply to {@code call} that arrived now, if it is a
     * rejection that ends of a call that records. A refund forgets the key's rejections.
     *
     * @param call the call that was sent
     * @param decision the server's answer to it
     */
    public synchronized void remember(Call call, Decision decision) {
        if (call.refund()) {
            forget(call.key());
            return;
        }
        if (call.peek() || decision.allowed() || decision.retryAfterMs() <= 0) {
            return;
        }
        double now = clock.getAsDouble();
        String id = call.line();
        entries.remove(id);
        // A sweep reads every entry: when full, at most once per `size` kept, so O(1) per call.
        if (++keptSinceSweep >= size && entries.size() >= size) {
            entries.values().removeIf(e -> now - e.at() >= e.decision().retryAfterMs());
            keptSinceSweep = 0;
        }
        Iterator<String> oldest = entries.keySet().iterator();
        while (entries.size() >= size && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
        entries.put(id, new Entry(decision, call.key(), now));
    }

    /**
     * Drop every entry of a command line on {@code key}.
     *
     * @param key the limit's key
     */
    public synchronized void forget(String key) {
        entries.values().removeIf(e -> e.key().equals(key));
    }
}
