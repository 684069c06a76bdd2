package io.winlimit.spring.boot.autoconfigure;

import io.winlimit.breaker.BreakerOptions;
import io.winlimit.internal.http.IpKeys;
import io.winlimit.internal.http.MiddlewareDefaults;
import io.winlimit.model.BackendChoice;
import io.winlimit.spring.boot.RatePolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code winlimit.*}: the named policies and what every policy takes unless it says otherwise.
 *
 * <pre>
 * winlimit:
 *   policies:
 *     sms:
 *       algorithm: slide
 *       windows: [{window: 1h, limit: 3}]
 *       key: "#userName"
 * </pre>
 *
 * Policies are a named map, so a profile's file changes one policy without repeating the
 * others (Boot merges maps, and replaces lists whole).
 */
@ConfigurationProperties(prefix = "winlimit")
public class WinlimitProperties {

    /** Whether to limit the requests of @RateLimit methods at all. */
    private boolean enabled = true;

    /** Put before every key the policies check, so the limiter's keys are told apart from the application's. */
    private String prefix = MiddlewareDefaults.PREFIX;

    /** How long a request waits for Redis before the check counts as failed (fail closed, or open). */
    private Duration timeout = MiddlewareDefaults.TIMEOUT;

    /** The bits of an IPv6 client address that make its default key (64: one host usually owns a whole /64; 128: the whole address). */
    private int ipv6Subnet = IpKeys.DEFAULT_IPV6_SUBNET;

    /** Which edition of winlimit answers: auto (the module where the server has it, else Functions, else the scripts), module, functions or scripts. */
    private BackendChoice backend = BackendChoice.AUTO;

    /** Whether to answer a command line that was just rejected from memory until its retry time ends (wrong only for a key another process resets meanwhile). */
    private boolean cacheRejections;

    /** Whether the limiter keeps a circuit breaker per server: after consecutive failures nothing is sent for a while, and requests fail at once (or the fallback decides). */
    private boolean breaker = true;

    /** How long the breaker stays open after the failures that open it, doubling on each failed probe up to 30 s (or up to this period when longer). */
    private Duration breakerOpen = Duration.ofMillis(BreakerOptions.DEFAULT_OPEN_MS);

    /** What decides while Redis fails or the breaker is open: none (fail closed or open, per policy) or memory (an in-process limiter with the module's decisions, counted per process). */
    private String fallback = "none";

    /** The server's winlimit.max-limit: the largest limit a slide policy without bucket may have (the exact log keeps one entry per unit, and the server refuses a larger limit on every call). Raise it only with the server's own setting. */
    private long maxLimit = RatePolicy.DEFAULT_MAX_LIMIT;

    /** The policies, by name: @RateLimit("name") and the programmatic calls name them. */
    private Map<String, PolicyProperties> policies = new LinkedHashMap<>();

    /**
     * The server's winlimit.max-limit: the largest limit a slide policy without bucket may have
     * (the exact log keeps one entry per unit, and the server refuses a larger limit on every
     * call). Raise it only with the server's own setting.
     *
     * @return the max limit
     */
    public long getMaxLimit() {
        return maxLimit;
    }

    /**
     * The server's winlimit.max-limit: the largest limit a slide policy without bucket may have
     * (the exact log keeps one entry per unit, and the server refuses a larger limit on every
     * call). Raise it only with the server's own setting.
     *
     * @param maxLimit the max limit
     */
    public void setMaxLimit(long maxLimit) {
        this.maxLimit = maxLimit;
    }

    /**
     * Whether to limit the requests of @RateLimit methods at all.
     *
     * @return true if so
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Whether to limit the requests of @RateLimit methods at all.
     *
     * @param enabled true if so
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * Put before every key the policies check, so the limiter's keys are told apart from the
     * application's.
     *
     * @return the prefix
     */
    public String getPrefix() {
        return prefix;
    }

    /**
     * Put before every key the policies check, so the limiter's keys are told apart from the
     * application's.
     *
     * @param prefix the prefix
     */
    public void setPrefix(String prefix) {
        this.prefix = prefix;
    }

    /**
     * How long a request waits for Redis before the check counts as failed (fail closed, or open).
     *
     * @return the timeout
     */
    public Duration getTimeout() {
        return timeout;
    }

    /**
     * How long a request waits for Redis before the check counts as failed (fail closed, or open).
     *
     * @param timeout the timeout
     */
    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * The bits of an IPv6 client address that make its default key (64: one host usually owns a
     * whole /64; 128: the whole address).
     *
     * @return the ipv6 subnet
     */
    public int getIpv6Subnet() {
        return ipv6Subnet;
    }

    /**
     * The bits of an IPv6 client address that make its default key (64: one host usually owns a
     * whole /64; 128: the whole address).
     *
     * @param ipv6Subnet the ipv6 subnet
     */
    public void setIpv6Subnet(int ipv6Subnet) {
        this.ipv6Subnet = ipv6Subnet;
    }

    /**
     * Which edition of winlimit answers: auto (the module where the server has it, else Functions,
     * else the scripts), module, functions or scripts.
     *
     * @return the backend
     */
    public BackendChoice getBackend() {
        return backend;
    }

    /**
     * Which edition of winlimit answers: auto (the module where the server has it, else Functions,
     * else the scripts), module, functions or scripts.
     *
     * @param backend the backend
     */
    public void setBackend(BackendChoice backend) {
        this.backend = backend;
    }

    /**
     * Whether to answer a command line that was just rejected from memory until its retry time
     * ends (wrong only for a key another process resets meanwhile).
     *
     * @return true if so
     */
    public boolean isCacheRejections() {
        return cacheRejections;
    }

    /**
     * Whether to answer a command line that was just rejected from memory until its retry time
     * ends (wrong only for a key another process resets meanwhile).
     *
     * @param cacheRejections true if so
     */
    public void setCacheRejections(boolean cacheRejections) {
        this.cacheRejections = cacheRejections;
    }

    /**
     * Whether the limiter keeps a circuit breaker per server: after consecutive failures nothing
     * is sent for a while, and requests fail at once (or the fallback decides).
     *
     * @return true if so
     */
    public boolean isBreaker() {
        return breaker;
    }

    /**
     * Whether the limiter keeps a circuit breaker per server: after consecutive failures nothing
     * is sent for a while, and requests fail at once (or the fallback decides).
     *
     * @param breaker true if so
     */
    public void setBreaker(boolean breaker) {
        this.breaker = breaker;
    }

    /**
     * How long the breaker stays open after the failures that open it, doubling on each failed
     * probe up to 30 s (or up to this period when longer).
     *
     * @return the breaker open
     */
    public Duration getBreakerOpen() {
        return breakerOpen;
    }

    /**
     * How long the breaker stays open after the failures that open it, doubling on each failed
     * probe up to 30 s (or up to this period when longer).
     *
     * @param breakerOpen the breaker open
     */
    public void setBreakerOpen(Duration breakerOpen) {
        this.breakerOpen = breakerOpen;
    }

    /**
     * What decides while Redis fails or the breaker is open: none (fail closed or open, per
     * policy) or memory (an in-process limiter with the module's decisions, counted per process).
     *
     * @return the fallback
     */
    public String getFallback() {
        return fallback;
    }

    /**
     * What decides while Redis fails or the breaker is open: none (fail closed or open, per
     * policy) or memory (an in-process limiter with the module's decisions, counted per process).
     *
     * @param fallback the fallback
     */
    public void setFallback(String fallback) {
        this.fallback = fallback;
    }

    /**
     * The policies, by name: @RateLimit("name") and the programmatic calls name them.
     *
     * @return the policies
     */
    public Map<String, PolicyProperties> getPolicies() {
        return policies;
    }

    /**
     * The policies, by name: @RateLimit("name") and the programmatic calls name them.
     *
     * @param policies the policies
     */
    public void setPolicies(Map<String, PolicyProperties> policies) {
        this.policies = policies;
    }
}
