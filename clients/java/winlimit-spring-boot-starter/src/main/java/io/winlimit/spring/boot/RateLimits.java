package io.winlimit.spring.boot;

import io.winlimit.AsyncLimiter;
import io.winlimit.model.Decision;
import io.winlimit.model.WinlimitException;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The named policies of {@code winlimit.policies}, for calls from code:
 *
 * <pre>
 * rateLimits.check("sms", userName);   // throws RateLimitExceededException when over the limit
 * </pre>
 *
 * Keys get the {@code winlimit.prefix}, as the web requests' keys do, so both count together.
 */
public final class RateLimits {
    private final AsyncLimiter limiter;
    private final Map<String, RatePolicy> policies;
    private final String prefix;
    private final WinlimitMeters meters;

    /**
     * The policies, with no meters.
     *
     * @param limiter the limiter the policies call
     * @param policies the policies by name (copied)
     * @param prefix put before every key
     */
    public RateLimits(AsyncLimiter limiter, Map<String, RatePolicy> policies, String prefix) {
        this(limiter, policies, prefix, WinlimitMeters.NONE);
    }

    /**
     * The policies, counted in {@code meters}.
     *
     * @param limiter the limiter the policies call
     * @param policies the policies by name (copied)
     * @param prefix put before every key
     * @param meters what counts each decision of {@link #decide} and {@link #check}, as the web
     *     requests' decisions are counted
     */
    public RateLimits(AsyncLimiter limiter, Map<String, RatePolicy> policies, String prefix, WinlimitMeters meters) {
        this.limiter = limiter;
        this.policies = Map.copyOf(policies);
        this.prefix = prefix;
        this.meters = meters;
    }

    /**
     * The policy of that name; IllegalArgumentException naming the known ones if none.
     *
     * @param name the policy's name
     * @return the policy
     * @throws IllegalArgumentException if no policy has that name
     */
    public RatePolicy policy(String name) {
        RatePolicy policy = policies.get(name);
        if (policy == null) {
            throw new IllegalArgumentException("no rate-limit policy " + name + " under winlimit.policies (the policies are "
                    + policies.keySet().stream().sorted().toList() + ")");
        }
        return policy;
    }

    /**
     * Every policy, by name.
     *
     * @return the policies, unmodifiable
     */
    public Map<String, RatePolicy> policies() {
        return policies;
    }

    /**
     * Records one request of {@code key} under {@code policy} and returns the decision,
     * accepted or not. A failed Redis call throws the core's WinlimitException.
     *
     * @param policy the policy's name under winlimit.policies
     * @param key the key, without the prefix
     * @return the decision
     * @throws IllegalArgumentException if no policy has that name
     * @throws io.winlimit.model.WinlimitException when Redis fails or gives no answer in time
     */
    public Decision decide(String policy, String key) {
        try {
            return decideAsync(policy, key).toCompletableFuture().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    /**
     * Records one request of {@code key} under {@code policy}; RateLimitExceededException when
     * it is over the limit (never in shadow mode).
     *
     * @param policy the policy's name under winlimit.policies
     * @param key the key, without the prefix
     * @return the decision, an acceptance (or a rejection in shadow mode)
     * @throws RateLimitExceededException when over the limit
     * @throws IllegalArgumentException if no policy has that name
     * @throws io.winlimit.model.WinlimitException when Redis fails or gives no answer in time
     */
    public Decision check(String policy, String key) {
        Decision decision = decide(policy, key);
        RatePolicy rp = policy(policy);
        if (!decision.allowed() && !rp.shadow()) {
            throw new RateLimitExceededException(policy, decision, decision.headers(rp.style()));
        }
        return decision;
    }

    /**
     * {@link #decide(String, String)}, asynchronously.
     *
     * @param policy the policy's name under winlimit.policies
     * @param key the key, without the prefix
     * @return completes with the decision, or exceptionally with a WinlimitException
     * @throws IllegalArgumentException if no policy has that name
     */
    public CompletionStage<Decision> decideAsync(String policy, String key) {
        RatePolicy rp = policy(policy);
        long started = System.nanoTime();
        return rp.check(limiter, prefix + key).whenComplete((decision, error) -> {
            if (decision != null) {
                meters.decided(rp.name(), decision, rp.shadow() && !decision.allowed(), System.nanoTime() - started);
            } else if (error instanceof WinlimitException || error.getCause() instanceof WinlimitException) {
                // Redis failed or gave no answer in time (the limiter fails with nothing else
                // for those); any other error is a bug and is not a decision's outcome.
                meters.failed(rp.name());
            }
        });
    }

    /**
     * The limiter the policies call.
     *
     * @return the limiter
     */
    public AsyncLimiter limiter() {
        return limiter;
    }
}
