package io.winlimit.spring.boot;

import io.winlimit.AsyncLimiter;
import io.winlimit.model.CallOptions;
import io.winlimit.model.Decision;
import io.winlimit.model.HeaderStyle;
import io.winlimit.model.SlideOptions;
import io.winlimit.model.Window;
import io.winlimit.spring.boot.autoconfigure.PolicyProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * One named policy, checked and ready: the winlimit call that decides, and how a web request
 * meets it (header style, fail-open, count, shadow). Made once at startup from
 * {@code winlimit.policies.<name>}; a bad setting fails there, naming the property.
 */
public final class RatePolicy {
    private static final int MAX_WINDOWS = 8;
    /** The server's winlimit.max-limit unless it was raised (the module's default; the Lua
     * library's fixed bound). */
    public static final long DEFAULT_MAX_LIMIT = 10_000;

    private final String name;
    private final Algorithm algorithm;
    private final List<Window> windows;
    private final long cost;
    private final Long burst;
    private final Duration bucket;
    private final boolean align;
    private final Duration block;
    private final String headerName;
    private final String key;
    private final HeaderStyle style;
    private final boolean failOpen;
    private final Count count;
    private final boolean shadow;
    private final Duration timeout;

    private RatePolicy(String name, PolicyProperties p, long maxLimit) {
        this.name = name;
        this.algorithm = p.getAlgorithm();
        this.windows = windows(name, p);
        this.cost = p.getCost();
        this.burst = p.getBurst();
        this.bucket = p.getBucket();
        this.align = p.isAlign();
        this.block = p.getBlock();
        this.headerName = p.getName();
        this.key = p.getKey() == null || p.getKey().isBlank() ? null : p.getKey();
        this.style = style(name, p.getHeaders());
        this.failOpen = p.isFailOpen();
        this.count = p.getCount();
        this.shadow = p.isShadow();
        this.timeout = p.getTimeout();
        check(p);
        checkExactLog(maxLimit);
    }

    /**
     * The policy {@code name} of these properties; IllegalArgumentException naming the bad one.
     *
     * @param name the policy's name under winlimit.policies
     * @param properties its properties
     * @return the checked policy
     * @throws IllegalArgumentException for a bad property, named with its path
     */
    public static RatePolicy of(String name, PolicyProperties properties) {
        return new RatePolicy(name, properties, DEFAULT_MAX_LIMIT);
    }

    /**
     * The same, on a server whose winlimit.max-limit is {@code maxLimit}.
     *
     * @param name the policy's name under winlimit.policies
     * @param properties its properties
     * @param maxLimit the server's winlimit.max-limit
     * @return the checked policy
     * @throws IllegalArgumentException for a bad property, named with its path
     */
    public static RatePolicy of(String name, PolicyProperties properties, long maxLimit) {
        return new RatePolicy(name, properties, maxLimit);
    }

    /**
     * Records {@code cost} units for {@code key} (the prefix included).
     *
     * @param limiter the limiter to call
     * @param key the key, prefix included
     * @return completes with the decision, or exceptionally with a WinlimitException
     */
    public CompletionStage<Decision> check(AsyncLimiter limiter, String key) {
        return call(limiter, key, false);
    }

    /**
     * Gives back the units one {@link #check} took (REFUND), for a request that does not count.
     *
     * @param limiter the limiter to call
     * @param key the key, prefix included
     * @return completes with the decision, or exceptionally with a WinlimitException
     */
    public CompletionStage<Decision> refund(AsyncLimiter limiter, String key) {
        return call(limiter, key, true);
    }

    private CompletionStage<Decision> call(AsyncLimiter limiter, String key, boolean refund) {
        return algorithm.call(limiter, key, this, refund);
    }

    /** The policy's options of every call on its algorithm's {@code shaped} ones: its cost,
     * block and header name; a refund is the check's own options made a refund
     * (CallOptions.asRefund): the same shape and name, its cost given back, no block. */
    <T extends CallOptions<T>> T common(T shaped, boolean refund) {
        T o = shaped.cost(cost);
        if (block != null) {
            o = o.block(block);
        }
        o = headerName == null ? o : o.name(headerName);
        return refund ? o.asRefund() : o;
    }

    Long burst() {
        return burst;
    }

    Duration bucket() {
        return bucket;
    }

    boolean align() {
        return align;
    }

    private static List<Window> windows(String name, PolicyProperties p) {
        if (p.getAlgorithm() == null) {
            throw bad(name, "algorithm", "must be " + Algorithm.choices());
        }
        List<PolicyProperties.WindowProperties> given = p.getWindows();
        if (given == null || given.isEmpty()) {
            throw bad(name, "windows", "needs a window and a limit, e.g. windows: [{window: 1m, limit: 100}]");
        }
        int most = p.getAlgorithm().severalWindows() ? MAX_WINDOWS : 1;
        if (given.size() > most) {
            throw bad(name, "windows", p.getAlgorithm().propertyName() + " takes at most " + most
                    + (most == 1 ? " window" : " windows") + ", not " + given.size());
        }
        List<Window> out = new ArrayList<>();
        for (int i = 0; i < given.size(); i++) {
            PolicyProperties.WindowProperties w = given.get(i);
            Duration length = w.getWindow();
            if (length == null || length.toMillis() < 1 || length.toMillis() > 1_000_000_000_000L
                    || !length.equals(Duration.ofMillis(length.toMillis()))) {
                throw bad(name, "windows[" + i + "].window", "must be a whole number of ms from 1 ms to 10^12 ms, not " + length);
            }
            if (w.getLimit() < 0 || w.getLimit() > 1_000_000_000_000L) {
                throw bad(name, "windows[" + i + "].limit", "must be from 0 to 10^12, not " + w.getLimit());
            }
            out.add(Window.of(length, w.getLimit()));
        }
        if (out.stream().map(Window::windowMs).distinct().count() != out.size()) {
            throw bad(name, "windows", "names each window length at most once");
        }
        return List.copyOf(out);
    }

    private void check(PolicyProperties p) {
        if (cost < 1) {
            throw bad(name, "cost", "must be at least 1, not " + cost);
        }
        if (burst != null && (burst < 1 || algorithm != Algorithm.GCRA)) {
            throw bad(name, "burst", algorithm != Algorithm.GCRA ? "is for gcra only" : "must be at least 1, not " + burst);
        }
        if (bucket != null && (algorithm != Algorithm.SLIDE || bucket.toMillis() < 1)) {
            throw bad(name, "bucket", algorithm != Algorithm.SLIDE ? "is for slide only" : "must be at least 1 ms, not " + bucket);
        }
        if (align && algorithm != Algorithm.FIXED) {
            throw bad(name, "align", "is for fixed only");
        }
        if (block != null && block.toMillis() < 1) {
            throw bad(name, "block", "must be at least 1 ms, not " + block);
        }
        if (timeout != null && timeout.toMillis() < 1) {
            throw bad(name, "timeout", "must be at least 1 ms, not " + timeout);
        }
        if (count == null) {
            throw bad(name, "count", "must be all, failures or successes");
        }
        // The core checks the rest (a policy name's characters, BUCKET against the windows)
        // as it builds a call: build its options now, so a bad policy stops the start, not a request.
        algorithm.options(this);
        common(SlideOptions.defaults(), false);
    }

    /** A slide limit the server would refuse on every call (one log entry per unit, at most
     * winlimit.max-limit) stops the start here, not every request with a 503. */
    private void checkExactLog(long maxLimit) {
        if (algorithm != Algorithm.SLIDE || bucket != null) {
            return;
        }
        for (int i = 0; i < windows.size(); i++) {
            long limit = windows.get(i).limit();
            if (limit > maxLimit) {
                throw bad(name, "windows[" + i + "].limit", limit + " is above the server's winlimit.max-limit ("
                        + maxLimit + "): slide keeps one entry per unit and the server would refuse every call. "
                        + "Give the policy a bucket (e.g. bucket: 1s, approximate and one number per bucket), or use "
                        + "fixed or gcra, or raise max-limit on the server and winlimit.max-limit to match");
            }
        }
    }

    private static HeaderStyle style(String name, String headers) {
        try {
            return HeaderStyle.of(headers);
        } catch (IllegalArgumentException e) {
            throw bad(name, "headers", e.getMessage());
        }
    }

    private static IllegalArgumentException bad(String policy, String property, String why) {
        return new IllegalArgumentException("winlimit.policies." + policy + "." + property + " " + why);
    }

    /**
     * The policy's name under winlimit.policies: the {@code policy} tag of its meters.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The SpEL key expression, or null for the client's address.
     *
     * @return the expression, or null
     */
    public String key() {
        return key;
    }

    /**
     * The header fields' style of the policy's answers.
     *
     * @return the style
     */
    public HeaderStyle style() {
        return style;
    }

    /**
     * Whether a request is let through, without the fields, when Redis fails or is late.
     *
     * @return true to fail open, false to answer 503
     */
    public boolean failOpen() {
        return failOpen;
    }

    /**
     * Which requests use up the limit.
     *
     * @return the rule
     */
    public Count count() {
        return count;
    }

    /**
     * Whether rejections are only logged and counted, and every request let through.
     *
     * @return true in shadow mode
     */
    public boolean shadow() {
        return shadow;
    }

    /**
     * How long a request waits for Redis under this policy; null: winlimit.timeout.
     *
     * @return the timeout, or null
     */
    public Duration timeout() {
        return timeout;
    }

    /**
     * The algorithm that decides.
     *
     * @return slide, fixed or gcra
     */
    public Algorithm algorithm() {
        return algorithm;
    }

    /**
     * The (window, limit) pairs.
     *
     * @return the windows, unmodifiable
     */
    public List<Window> windows() {
        return windows;
    }

    /**
     * The units one request takes (COST).
     *
     * @return the cost, 1 or more
     */
    public long cost() {
        return cost;
    }
}
