package io.winlimit.spring.cloud.gateway;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

import io.winlimit.AsyncLimiter;
import io.winlimit.spring.boot.Algorithm;
import io.winlimit.spring.boot.RatePolicy;
import io.winlimit.spring.boot.autoconfigure.PolicyProperties;
import io.winlimit.spring.boot.internal.web.RequestGuard;
import io.winlimit.spring.boot.internal.web.Verdict;
import reactor.core.publisher.Mono;

/**
 * A {@code RateLimiter} for Spring Cloud Gateway's {@code RequestRateLimiter} filter, with its
 * configuration per route under {@code winlimit-rate-limiter.*}:
 *
 * <pre>
 * filters:
 *   - name: RequestRateLimiter
 *     args:
 *       winlimit-rate-limiter.windows[0].window: 1m
 *       winlimit-rate-limiter.windows[0].limit: 100
 *       winlimit-rate-limiter.windows[1].window: 1h
 *       winlimit-rate-limiter.windows[1].limit: 1000
 * </pre>
 *
 * Any window length, up to 8 windows in one atomic call (slide), or fixed or gcra; a cost per
 * request. Each route counts under its own key ({@code prefix + routeId + ":" + key}), so two
 * routes never share or overwrite each other's limits. Every response gets the draft-11
 * fields, a rejection Retry-After too. When Redis fails the request is answered 503 (fail
 * closed), or let through with {@code winlimit-rate-limiter.fail-open: true}; either way it is
 * logged and counted. A route's bad configuration stops the application's start: a bad value,
 * an unknown argument under the prefix, one of these options written without it, or a slide
 * limit above the server's {@code winlimit.max-limit} (which the server would refuse on every
 * request).
 */
public class WinlimitRateLimiter extends AbstractRateLimiter<WinlimitRateLimiter.Config> {
    /** The prefix of this limiter's arguments in a route's filter. */
    public static final String CONFIGURATION_PROPERTY_NAME = "winlimit-rate-limiter";

    private final RequestGuard guard;
    private final Map<String, RatePolicy> policies = new ConcurrentHashMap<>();
    private final long maxLimit;

    /**
     * A limiter whose slide routes may go up to the module's default winlimit.max-limit.
     *
     * @param limiter the limiter; it must have a reactive view
     * @param guard the request guard: the calls, timeouts, fail open or closed, metrics
     * @param configurationService the gateway's, which binds each route's arguments
     * @throws IllegalStateException over a blocking client (Jedis), with the reason
     */
    public WinlimitRateLimiter(AsyncLimiter limiter, RequestGuard guard, ConfigurationService configurationService) {
        this(limiter, guard, configurationService, RatePolicy.DEFAULT_MAX_LIMIT);
    }

    /**
     * A limiter for a server whose winlimit.max-limit is {@code maxLimit}.
     *
     * @param limiter the limiter; it must have a reactive view
     * @param guard the request guard: the calls, timeouts, fail open or closed, metrics
     * @param configurationService the gateway's, which binds each route's arguments
     * @param maxLimit the server's winlimit.max-limit: a slide route above it is refused at start
     * @throws IllegalStateException over a blocking client (Jedis), with the reason
     */
    public WinlimitRateLimiter(AsyncLimiter limiter, RequestGuard guard, ConfigurationService configurationService,
                               long maxLimit) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        limiter.reactive(); // IllegalStateException, with the reason, for a blocking client (Jedis)
        this.guard = guard;
        this.maxLimit = maxLimit;
    }

    @Override
    public void onApplicationEvent(FilterArgsEvent event) {
        super.onApplicationEvent(event);
        Config config = getConfig().get(event.getRouteId());
        if (config != null) {
            policies.put(event.getRouteId(), config.policy(event.getRouteId(), maxLimit));
        }
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        return Mono.defer(() -> {
            RatePolicy policy = policy(routeId);
            // No thread hop: the call is dispatched on Lettuce's async API and never blocks, as
            // Spring Cloud Gateway's own RedisRateLimiter does through the reactive template.
            return Mono.fromFuture(() -> guard.decide(policy, routeId + ":" + id)).flatMap(this::response);
        });
    }

    /** The route's policy: bound from its arguments, or set on {@link #getConfig()} by the Java DSL. */
    private RatePolicy policy(String routeId) {
        return policies.computeIfAbsent(routeId, id -> {
            Config config = getConfig().get(id);
            if (config == null) {
                throw new IllegalStateException("route " + id + " has no " + CONFIGURATION_PROPERTY_NAME
                        + ".* arguments: give its RequestRateLimiter filter at least one window");
            }
            return config.policy(id, maxLimit);
        });
    }

    private Mono<Response> response(Verdict verdict) {
        if (verdict.unavailable()) {
            return Mono.error(new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "rate limiter unavailable"));
        }
        return Mono.just(new Response(!verdict.rejected(), verdict.headers()));
    }

    /** One route's settings, bound from its filter's arguments and checked as they are. */
    public static class Config {
        private Algorithm algorithm = Algorithm.SLIDE;
        private List<PolicyProperties.WindowProperties> windows = new ArrayList<>();
        private long cost = 1;
        private Long burst;
        private Duration bucket;
        private boolean align;
        private boolean failOpen;
        private boolean shadow;
        private String name;

        /** The route's policy; IllegalArgumentException naming the bad argument. */
        RatePolicy policy(String routeId, long maxLimit) {
            PolicyProperties p = new PolicyProperties();
            p.setAlgorithm(algorithm);
            p.setWindows(windows);
            p.setCost(cost);
            p.setBurst(burst);
            p.setBucket(bucket);
            p.setAlign(align);
            p.setFailOpen(failOpen);
            p.setShadow(shadow);
            p.setName(name);
            try {
                return RatePolicy.of(routeId, p, maxLimit);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("route " + routeId + ": " + e.getMessage()
                        .replace("winlimit.policies." + routeId + ".", CONFIGURATION_PROPERTY_NAME + "."), e);
            }
        }

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
         * @return this configuration, for the Java DSL
         */
        public Config setAlgorithm(Algorithm algorithm) {
            this.algorithm = algorithm;
            return this;
        }

        /**
         * The (window, limit) pairs: slide takes up to 8, fixed and gcra exactly one.
         *
         * @return the pairs
         */
        public List<PolicyProperties.WindowProperties> getWindows() {
            return windows;
        }

        /**
         * The (window, limit) pairs: slide takes up to 8, fixed and gcra exactly one.
         *
         * @param windows the pairs
         * @return this configuration, for the Java DSL
         */
        public Config setWindows(List<PolicyProperties.WindowProperties> windows) {
            this.windows = windows;
            return this;
        }

        /**
         * A window of {@code limit} per {@code window}, for routes written in the Java DSL.
         *
         * @param window the window's length
         * @param limit the units allowed per window
         * @return this configuration
         */
        public Config window(Duration window, long limit) {
            PolicyProperties.WindowProperties w = new PolicyProperties.WindowProperties();
            w.setWindow(window);
            w.setLimit(limit);
            windows.add(w);
            return this;
        }

        /**
         * Units one request takes (COST).
         *
         * @return the units
         */
        public long getCost() {
            return cost;
        }

        /**
         * Units one request takes (COST).
         *
         * @param cost the units
         * @return this configuration, for the Java DSL
         */
        public Config setCost(long cost) {
            this.cost = cost;
            return this;
        }

        /**
         * GCRA: the bucket's capacity (BURST); null for the limit.
         *
         * @return the capacity, or null
         */
        public Long getBurst() {
            return burst;
        }

        /**
         * GCRA: the bucket's capacity (BURST); null for the limit.
         *
         * @param burst the capacity, or null
         * @return this configuration, for the Java DSL
         */
        public Config setBurst(Long burst) {
            this.burst = burst;
            return this;
        }

        /**
         * Slide: count per bucket of this length instead of one entry per unit (BUCKET).
         *
         * @return the bucket's length, or null
         */
        public Duration getBucket() {
            return bucket;
        }

        /**
         * Slide: count per bucket of this length instead of one entry per unit (BUCKET).
         *
         * @param bucket the bucket's length, or null
         * @return this configuration, for the Java DSL
         */
        public Config setBucket(Duration bucket) {
            this.bucket = bucket;
            return this;
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
         * @return this configuration, for the Java DSL
         */
        public Config setAlign(boolean align) {
            this.align = align;
            return this;
        }

        /**
         * Whether to let requests through, without the fields, when Redis fails or does not answer
         * in time (otherwise 503).
         *
         * @return true if so
         */
        public boolean isFailOpen() {
            return failOpen;
        }

        /**
         * Whether to let requests through, without the fields, when Redis fails or does not answer
         * in time (otherwise 503).
         *
         * @param failOpen true if so
         * @return this configuration, for the Java DSL
         */
        public Config setFailOpen(boolean failOpen) {
            this.failOpen = failOpen;
            return this;
        }

        /**
         * Whether to check and count but let every request through (rejections are logged and
         * counted).
         *
         * @return true if so
         */
        public boolean isShadow() {
            return shadow;
        }

        /**
         * Whether to check and count but let every request through (rejections are logged and
         * counted).
         *
         * @param shadow true if so
         * @return this configuration, for the Java DSL
         */
        public Config setShadow(boolean shadow) {
            this.shadow = shadow;
            return this;
        }

        /**
         * The policy's name in RateLimit-Policy and RateLimit; null for "winlimit", or one per
         * window.
         *
         * @return the name, or null
         */
        public String getName() {
            return name;
        }

        /**
         * The policy's name in RateLimit-Policy and RateLimit; null for "winlimit", or one per
         * window.
         *
         * @param name the name, or null
         * @return this configuration, for the Java DSL
         */
        public Config setName(String name) {
            this.name = name;
            return this;
        }
    }
}
