package io.winlimit.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A rate-limit decision: the five fields every winlimit command replies, the policies of the
 * call, and the HTTP header fields they map to.
 *
 * <p>{@code limit}, {@code remaining} and {@code resetAfter} describe the binding pair of the
 * call; {@link #policies()} lists every policy the call checked, {@link #policy()} is the
 * binding one.
 */
public final class Decision {
    private final boolean allowed;
    private final long limit;
    private final long remaining;
    private final long retryAfterMs;
    private final long resetAfterMs;
    private final List<Policy> policies;
    private final long waitedMs;
    private final boolean cached;
    private final Backend backend;

    /**
     * A decision of the given fields, as a reply and the call's policies give them.
     *
     * @param allowed whether the call was accepted
     * @param limit the binding pair's limit
     * @param remaining units left in the binding pair's window
     * @param retryAfterMs 0 when allowed; else ms until a retry can succeed, -1 if none can
     * @param resetAfterMs ms until nothing counts in the binding pair's window
     * @param policies every policy the call checked, in its order (copied)
     * @param backend which edition answered
     */
    public Decision(boolean allowed, long limit, long remaining, long retryAfterMs, long resetAfterMs,
                    List<Policy> policies, Backend backend) {
        this(allowed, limit, remaining, retryAfterMs, resetAfterMs, policies, backend, 0, false);
    }

    private Decision(boolean allowed, long limit, long remaining, long retryAfterMs, long resetAfterMs,
                     List<Policy> policies, Backend backend, long waitedMs, boolean cached) {
        this.allowed = allowed;
        this.limit = limit;
        this.remaining = remaining;
        this.retryAfterMs = retryAfterMs;
        this.resetAfterMs = resetAfterMs;
        this.policies = List.copyOf(policies);
        this.backend = backend;
        this.waitedMs = waitedMs;
        this.cached = cached;
    }

    /**
     * The same decision, having slept {@code waitedMs} before it.
     *
     * @param waitedMs the ms slept in all
     * @return a copy with {@link #waitedMs()} set
     */
    public Decision withWaited(long waitedMs) {
        return new Decision(allowed, limit, remaining, retryAfterMs, resetAfterMs, policies, backend, waitedMs, cached);
    }

    /**
     * The same decision, answered from the rejection cache.
     *
     * @param retryAfterMs the wait left now, in ms
     * @param resetAfterMs the time to a reset left now, in ms
     * @return a copy marked {@link #cached()}, with these times
     */
    public Decision asCached(long retryAfterMs, long resetAfterMs) {
        return new Decision(allowed, limit, remaining, retryAfterMs, resetAfterMs, policies, backend, waitedMs, true);
    }

    /**
     * True if the request was accepted and recorded (peek: would be accepted now).
     *
     * @return whether the call was accepted
     */
    public boolean allowed() {
        return allowed;
    }

    /**
     * The limit of the binding pair (GCRA: the bucket's capacity).
     *
     * @return the limit, in units
     */
    public long limit() {
        return limit;
    }

    /**
     * Units still available in the binding pair's window after this call.
     *
     * @return units left, 0 or more
     */
    public long remaining() {
        return remaining;
    }

    /**
     * 0 when allowed; else the least wait after which the same request is accepted; -1 when it
     * never can (the cost is above the limit).
     *
     * @return milliseconds: 0, the wait, or -1
     */
    public long retryAfterMs() {
        return retryAfterMs;
    }

    /**
     * {@link #retryAfterMs()} as a Duration; empty when a retry can never succeed.
     *
     * @return the wait, zero when allowed
     */
    public Optional<Duration> retryAfter() {
        return retryAfterMs < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(retryAfterMs));
    }

    /**
     * Ms until nothing counts in the binding pair's window (GCRA: until the bucket is full).
     *
     * @return milliseconds, 0 or more
     */
    public long resetAfterMs() {
        return resetAfterMs;
    }

    /**
     * {@link #resetAfterMs()} as a Duration.
     *
     * @return the time to a reset
     */
    public Duration resetAfter() {
        return Duration.ofMillis(resetAfterMs);
    }

    /**
     * Every policy the call checked, in the call's order.
     *
     * @return the policies, unmodifiable
     */
    public List<Policy> policies() {
        return policies;
    }

    /**
     * How long the call slept in all before this decision ({@code waitUpTo}); 0 when it did not.
     *
     * @return milliseconds slept, 0 or more
     */
    public long waitedMs() {
        return waitedMs;
    }

    /**
     * True when the decision came from the limiter's cache of rejections, not from Redis.
     *
     * @return true for a cached answer
     */
    public boolean cached() {
        return cached;
    }

    /**
     * Which edition of winlimit answered.
     *
     * @return the edition (MEMORY for a fallback's decision)
     */
    public Backend backend() {
        return backend;
    }

    /**
     * The binding policy: the one whose quota is the reply's limit; of several, the longest
     * window (the module's tie rule). Empty if none matches.
     *
     * @return the binding policy
     */
    public Optional<Policy> policy() {
        Policy best = null;
        for (Policy p : policies) {
            if (p.quota() == limit && (best == null || p.windowMs() > best.windowMs())) {
                best = p;
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * The response header fields of draft-ietf-httpapi-ratelimit-headers revision 11:
     * RateLimit-Policy, RateLimit, and Retry-After when rejected and a retry can succeed.
     * IllegalStateException for a decision without its binding policy.
     *
     * @return the fields by name, in the order to send them
     * @throws IllegalStateException for a decision without its binding policy
     */
    public Map<String, String> headers() {
        return HeaderStyle.DRAFT_11.fields(this, System.currentTimeMillis());
    }

    /**
     * The response header fields in {@code style}; legacy dates its reset by the wall clock.
     *
     * @param style the header style
     * @return the fields by name, in the order to send them
     */
    public Map<String, String> headers(HeaderStyle style) {
        return style.fields(this, System.currentTimeMillis());
    }

    /**
     * The response header fields in {@code style}, legacy's reset dated from {@code nowMs}.
     *
     * @param style the header style
     * @param nowMs the wall clock, ms since the epoch
     * @return the fields by name, in the order to send them
     */
    public Map<String, String> headers(HeaderStyle style, long nowMs) {
        return style.fields(this, nowMs);
    }

    @Override
    public String toString() {
        return "Decision[allowed=" + allowed + ", limit=" + limit + ", remaining=" + remaining
                + ", retryAfterMs=" + retryAfterMs + ", resetAfterMs=" + resetAfterMs + ", policies=" + policies
                + ", backend=" + backend + ", waitedMs=" + waitedMs + ", cached=" + cached + "]";
    }
}
