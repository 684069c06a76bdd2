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

    public Algorithm getAlgorithm() {
        return algorithm;
    }

    public void setAlgorithm(Algorithm algorithm) {
        this.algorithm = algorithm;
    }

    public List<WindowProperties> getWindows() {
        return windows;
    }

    public void setWindows(List<WindowProperties> windows) {
        this.windows = windows;
    }

    public String getKey() {
        return key;
    }

    public void setKey(String key) {
        this.key = key;
    }

    public long getCost() {
        return cost;
    }

    public void setCost(long cost) {
        this.cost = cost;
    }

    public Long getBurst() {
        return burst;
    }

    public void setBurst(Long burst) {
        this.burst = burst;
    }

    public Duration getBucket() {
        return bucket;
    }

    public void setBucket(Duration bucket) {
        this.bucket = bucket;
    }

    public boolean isAlign() {
        return align;
    }

    public void setAlign(boolean align) {
        this.align = align;
    }

    public Duration getBlock() {
        return block;
    }

    public void setBlock(Duration block) {
        this.block = block;
    }

    public String getHeaders() {
        return headers;
    }

    public void setHeaders(String headers) {
        this.headers = headers;
    }

    public boolean isFailOpen() {
        return failOpen;
    }

    public void setFailOpen(boolean failOpen) {
        this.failOpen = failOpen;
    }

    public Count getCount() {
        return count;
    }

    public void setCount(Count count) {
        this.count = count;
    }

    public boolean isShadow() {
        return shadow;
    }

    public void setShadow(boolean shadow) {
        this.shadow = shadow;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    /** One (window, limit) pair. */
    public static class WindowProperties {

        /** The window's length (1s, 1m, 1h, 1d, or milliseconds). */
        private Duration window;

        /** Units allowed per window. */
        private long limit;

        public Duration getWindow() {
            return window;
        }

        public void setWindow(Duration window) {
            this.window = window;
        }

        public long getLimit() {
            return limit;
        }

        public void setLimit(long limit) {
            this.limit = limit;
        }
    }
}
