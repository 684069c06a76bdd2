package io.winlimit.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.winlimit.spring.boot.Algorithm;
import io.winlimit.spring.boot.Count;

/** One named policy, {@code winlimit.policies.<name>.*}: the call that decides and how a web request meets it. */
public class PolicyProperties {

    /** The algorithm: slide (exact sliding window, several windows), fixed (one fixed window) or gcra (token bucket: one window is the period, its limit the rate). */
    private Algorithm algorithm = Algorithm.SLIDE;

    /** The (window, limit) pairs: slide takes up to 8, fixed and gcra exactly one. */
    private List<WindowProperties> windows = new ArrayList<>();

    /** The key, a SpEL expression over the handler method's arguments (#name) and the request (#request); default: the client's address, an IPv6 one as its /64. */
    private String key;

    /** Units one request takes (COST). */
    private long cost = 1;

    /** GCRA: the bucket's capacity (BURST); default the limit. */
    private Long burst;

    /** Slide: count per bucket of this length instead of one entry per unit (BUCKET). */
    private Duration bucket;

    /** Whether fixed windows start at multiples of the window since the Unix epoch (ALIGN). */
    private boolean align;

    /** Once rejected, the key is refused for this long (BLOCK). */
    private Duration block;

    /** The header fields: draft-11 (the default), draft-7, legacy or none. */
    private String headers = "draft-11";

    /** Whether to let requests through, without the fields, when Redis fails or does not answer in time (default: answer 503). */
    private boolean failOpen;

    /** Which requests use up the limit: all, failures (status 400 or more, or an exception) or successes; the others are refunded once the status is known. */
    private Count count = Count.ALL;

    /** Whether to check and count but let every request through (a rejection is logged once per key per quiet period and counted as shadow_rejected). */
    private boolean shadow;

    /** How long a request waits for Redis under this policy (default winlimit.timeout). */
    private Duration timeout;

    /** The policy's name in RateLimit-Policy and RateLimit (default "winlimit", or one per window). */
    private String name;

    /**
     * The algorithm: slide (exact sliding window, several windows), fixed (one fixed window) or
     * gcra (token bucket: one window is the period, its limit the rate).
     *
     * @return the algorithm
     */
    public Algorithm getAlgorithm() {
        return algorithm;
    }

    /**
     * The algorithm: slide (exact sliding window, several windows), fixed (one fixed window) or
     * gcra (token bucket: one window is the period, its limit the rate).
     *
     * @param algorithm the algorithm
     */
    public void setAlgorithm(Algorithm algorithm) {
        this.algorithm = algorithm;
    }

    /**
     * The (window, limit) pairs: slide takes up to 8, fixed and gcra exactly one.
     *
     * @return the windows
     */
    public List<WindowProperties> getWindows() {
        return windows;
    }

    /**
     * The (window, limit) pairs: slide takes up to 8, fixed and gcra exactly one.
     *
     * @param windows the windows
     */
    public void setWindows(List<WindowProperties> windows) {
        this.windows = windows;
    }

    /**
     * The key, a SpEL expression over the handler method's arguments (#name) and the request
     * (#request); default: the client's address, an IPv6 one as its /64.
     *
     * @return the key
     */
    public String getKey() {
        return key;
    }

    /**
     * The key, a SpEL expression over the handler method's arguments (#name) and the request
     * (#request); default: the client's address, an IPv6 one as its /64.
     *
     * @param key the key
     */
    public void setKey(String key) {
        this.key = key;
    }

    /**
     * Units one request takes (COST).
     *
     * @return the cost
     */
    public long getCost() {
        return cost;
    }

    /**
     * Units one request takes (COST).
     *
     * @param cost the cost
     */
    public void setCost(long cost) {
        this.cost = cost;
    }

    /**
     * GCRA: the bucket's capacity (BURST); default the limit.
     *
     * @return the burst
     */
    public Long getBurst() {
        return burst;
    }

    /**
     * GCRA: the bucket's capacity (BURST); default the limit.
     *
     * @param burst the burst
     */
    public void setBurst(Long burst) {
        this.burst = burst;
    }

    /**
     * Slide: count per bucket of this length instead of one entry per unit (BUCKET).
     *
     * @return the bucket
     */
    public Duration getBucket() {
        return bucket;
    }

    /**
     * Slide: count per bucket of this length instead of one entry per unit (BUCKET).
     *
     * @param bucket the bucket
     */
    public void setBucket(Duration bucket) {
        this.bucket = bucket;
    }

    /**
     * Whether fixed windows start at multiples of the window since the Unix epoch (ALIGN).
     *
     * @return true if so
     */
    public boolean isAlign() {
        return align;
    }

    /**
     * Whether fixed windows start at multiples of the window since the Unix epoch (ALIGN).
     *
     * @param align true if so
     */
    public void setAlign(boolean align) {
        this.align = align;
    }

    /**
     * Once rejected, the key is refused for this long (BLOCK).
     *
     * @return the block
     */
    public Duration getBlock() {
        return block;
    }

    /**
     * Once rejected, the key is refused for this long (BLOCK).
     *
     * @param block the block
     */
    public void setBlock(Duration block) {
        this.block = block;
    }

    /**
     * The header fields: draft-11 (the default), draft-7, legacy or none.
     *
     * @return the headers
     */
    public String getHeaders() {
        return headers;
    }

    /**
     * The header fields: draft-11 (the default), draft-7, legacy or none.
     *
     * @param headers the headers
     */
    public void setHeaders(String headers) {
        this.headers = headers;
    }

    /**
     * Whether to let requests through, without the fields, when Redis fails or does not answer in
     * time (default: answer 503).
     *
     * @return true if so
     */
    public boolean isFailOpen() {
        return failOpen;
    }

    /**
     * Whether to let requests through, without the fields, when Redis fails or does not answer in
     * time (default: answer 503).
     *
     * @param failOpen true if so
     */
    public void setFailOpen(boolean failOpen) {
        this.failOpen = failOpen;
    }

    /**
     * Which requests use up the limit: all, failures (status 400 or more, or an exception) or
     * successes; the others are refunded once the status is known.
     *
     * @return the count
     */
    public Count getCount() {
        return count;
    }

    /**
     * Which requests use up the limit: all, failures (status 400 or more, or an exception) or
     * successes; the others are refunded once the status is known.
     *
     * @param count the count
     */
    public void setCount(Count count) {
        this.count = count;
    }

    /**
     * Whether to check and count but let every request through (a rejection is logged once per key
     * per quiet period and counted as shadow_rejected).
     *
     * @return true if so
     */
    public boolean isShadow() {
        return shadow;
    }

    /**
     * Whether to check and count but let every request through (a rejection is logged once per key
     * per quiet period and counted as shadow_rejected).
     *
     * @param shadow true if so
     */
    public void setShadow(boolean shadow) {
        this.shadow = shadow;
    }

    /**
     * How long a request waits for Redis under this policy (default winlimit.timeout).
     *
     * @return the timeout
     */
    public Duration getTimeout() {
        return timeout;
    }

    /**
     * How long a request waits for Redis under this policy (default winlimit.timeout).
     *
     * @param timeout the timeout
     */
    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * The policy's name in RateLimit-Policy and RateLimit (default "winlimit", or one per window).
     *
     * @return the name
     */
    public String getName() {
        return name;
    }

    /**
     * The policy's name in RateLimit-Policy and RateLimit (default "winlimit", or one per window).
     *
     * @param name the name
     */
    public void setName(String name) {
        this.name = name;
    }

    /** One (window, limit) pair. */
    public static class WindowProperties {

        /** The window's length (1s, 1m, 1h, 1d, or milliseconds). */
        private Duration window;

        /** Units allowed per window. */
        private long limit;

        /**
         * The window's length (1s, 1m, 1h, 1d, or milliseconds).
         *
         * @return the window
         */
        public Duration getWindow() {
            return window;
        }

        /**
         * The window's length (1s, 1m, 1h, 1d, or milliseconds).
         *
         * @param window the window
         */
        public void setWindow(Duration window) {
            this.window = window;
        }

        /**
         * Units allowed per window.
         *
         * @return the limit
         */
        public long getLimit() {
            return limit;
        }

        /**
         * Units allowed per window.
         *
         * @param limit the limit
         */
        public void setLimit(long limit) {
            this.limit = limit;
        }
    }
}
