package io.winlimit.spring.boot;

import io.winlimit.model.Decision;
import java.util.Map;

/**
 * A request over a policy's limit, thrown by {@link RateLimits#check(String, String)} for
 * programmatic calls. In a Spring MVC or WebFlux application it is answered 429 with the
 * policy's header fields and Retry-After, wherever the handler throws it.
 */
public class RateLimitExceededException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The rejection; not serialised. */
    private final transient Decision decision;
    /** The policy's name under winlimit.policies. */
    private final String policy;
    /** The response header fields. */
    private final Map<String, String> headers;

    /**
     * The exception of a rejection; its message says when to retry.
     *
     * @param policy the policy's name under winlimit.policies
     * @param decision the rejection
     * @param headers the response header fields (copied)
     */
    public RateLimitExceededException(String policy, Decision decision, Map<String, String> headers) {
        super("rate limit of policy " + policy + " exceeded"
                + (decision.retryAfterMs() >= 0 ? ": retry after " + decision.retryAfterMs() + " ms" : ": the cost exceeds the limit"));
        this.policy = policy;
        this.decision = decision;
        this.headers = Map.copyOf(headers);
    }

    /**
     * The rejection: retryAfter, resetAfter, the binding policy.
     *
     * @return the decision, null after deserialisation
     */
    public Decision decision() {
        return decision;
    }

    /**
     * The policy's name under winlimit.policies.
     *
     * @return the name
     */
    public String policy() {
        return policy;
    }

    /**
     * The response header fields, in the policy's style, with Retry-After when a retry can succeed.
     *
     * @return the fields by name, unmodifiable
     */
    public Map<String, String> headers() {
        return headers;
    }
}
