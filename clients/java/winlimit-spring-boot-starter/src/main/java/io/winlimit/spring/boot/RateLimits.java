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

    public RateLimits(AsyncLimiter limiter, Map<String, RatePolicy> policies, String prefix) {
        this(limiter, policies, prefix, WinlimitMeters.NONE);
    }

    /** @param meters what counts each decision of {@link #decide} and {@link #check}, as the web
     *     requests' decisions are counted */
    public RateLimits(AsyncLimiter limiter, Map<String, RatePolicy> policies, String prefix, WinlimitMeters meters) {
        this.limiter = limiter;
        this.policies = Map.copyOf(policies);
        this.prefix = prefix;
        this.meters = meters;
    }

    /** The policy of that name; IllegalArgumentException naming the known ones if none. */
    public RatePolicy policy(String name) {
        RatePolicy policy = policies.get(name);
        if (policy == null) {
            throw new IllegalArgumentException("no rate-limit policy " + name + " under winlimit.policies (the policies are "
                    + policies.keySet().stream().sorted().toList() + ")");
        }
        return policy;
    }

    /** Every policy, by name. */
    public Map<String, RatePolicy> policies() {
        return policies;
    }

    /** Records one request of {@code key} under {@code policy} and returns the decision,
     * accepted or not. A failed Redis call throws the core's WinlimitException. */
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

    /** Records one request of {@code key} under {@code policy}; RateLimitExceededException when
     * it is over the limit (never in shadow mode). */
    public Decision check(String policy, String key) {
        Decision decision = decide(policy, key);
        RatePolicy rp = policy(policy);
        if (!decision.allowed() && !rp.shadow()) {
            throw new RateLimitExceededException(policy, decision, decision.headers(rp.style()));
        }
        return decision;
    }

    /** {@link #decide(String, String)}, asynchronously. */
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

    public AsyncLimiter limiter() {
        return limiter;
    }
}
