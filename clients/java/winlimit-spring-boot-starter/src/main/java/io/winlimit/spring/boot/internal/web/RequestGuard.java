package io.winlimit.spring.boot.internal.web;

import io.winlimit.AsyncLimiter;
import io.winlimit.internal.http.ShadowLog;
import io.winlimit.model.Decision;
import io.winlimit.internal.text.Json;
import io.winlimit.model.RedisTimeoutException;
import io.winlimit.model.WinlimitException;
import io.winlimit.spring.boot.RatePolicy;
import io.winlimit.spring.boot.WinlimitMeters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What the servlet interceptor and the reactive filter share, with no web framework: the
 * check of a request's key under a policy, and the verdict on its decision, as the Python and
 * Node middleware give it (clients/spec/middleware.json): accepted, the fields; rejected, 429
 * with them and Retry-After; shadow, let through without Retry-After and warned about once per
 * key per quiet period; Redis failing or silent past the timeout, 503 (or let through without
 * the fields when the policy fails open) with one error line. An error that is not Redis's
 * propagates.
 */
public final class RequestGuard {
    private static final Log LOG = LogFactory.getLog("winlimit");

    private final AsyncLimiter limiter;
    private final String prefix;
    private final Duration timeout;
    private final WinlimitMeters meters;
    private final ShadowLog shadowLog;

    /**
     * A guard over {@code limiter}.
     *
     * @param limiter the limiter the policies call
     * @param prefix put before every key
     * @param timeout how long a check waits unless its policy says otherwise (winlimit.timeout)
     * @param meters what counts the decisions and failures
     * @param shadowLog the log of the rejections shadow mode lets through
     */
    public RequestGuard(AsyncLimiter limiter, String prefix, Duration timeout, WinlimitMeters meters, ShadowLog shadowLog) {
        this.limiter = limiter;
        this.prefix = prefix;
        this.timeout = timeout;
        this.meters = meters;
        this.shadowLog = shadowLog;
    }

    /** One limit of a request: its policy, and its key without the prefix. */
    public record Check(RatePolicy policy, String key) {}

    /**
     * The verdicts on a request's limits, decided one after another in the order given: the
     * first that does not let the request through (429 or 503) is the last, as a stack of the
     * other clients' middleware decides. Empty when there is nothing to check.
     *
     * @param checks the request's limits, in order
     * @return completes with the verdicts; exceptionally only with an error that is not Redis's
     */
    public CompletableFuture<List<Verdict>> decideAll(List<Check> checks) {
        CompletableFuture<List<Verdict>> out = CompletableFuture.completedFuture(new ArrayList<>());
        for (Check check : checks) {
            out = out.thenCompose(verdicts -> {
                if (!verdicts.isEmpty() && !verdicts.get(verdicts.size() - 1).passes()) {
                    return CompletableFuture.completedFuture(verdicts);
                }
                return decide(check.policy(), check.key()).thenApply(verdict -> {
                    verdicts.add(verdict);
                    return verdicts;
                });
            });
        }
        return out;
    }

    /**
     * The response fields of every verdict decided, merged in order by each one's style
     * (draft-11 lists every policy; clients/spec/header_styles.json).
     *
     * @param verdicts the verdicts, in order
     * @return the fields to send, by name
     */
    public static Map<String, String> fields(List<Verdict> verdicts) {
        Map<String, String> on = new LinkedHashMap<>();
        for (Verdict verdict : verdicts) {
            if (verdict.decision() != null) { // Redis failed: no fields (failing open or closed)
                on = verdict.policy().style().merged(on, verdict.headers());
            }
        }
        return on;
    }

    /**
     * The verdict on a request whose key is {@code key} (without the prefix) under {@code policy}.
     *
     * @param policy the policy
     * @param key the key, without the prefix
     * @return completes with the verdict (503 or let through when Redis fails); exceptionally
     *     only with an error that is not Redis's
     */
    public CompletableFuture<Verdict> decide(RatePolicy policy, String key) {
        String full = prefix + key;
        long started = System.nanoTime();
        CompletableFuture<Decision> call = policy.check(limiter, full).toCompletableFuture();
        Duration within = timeout(policy);
        // winlimit.timeout is the limiter's own: it cancels the command and counts the failure
        // in its breaker. Only a policy's shorter timeout needs a timer here.
        CompletableFuture<Decision> timed = policy.timeout() == null ? call.copy()
                : call.copy().orTimeout(within.toMillis(), TimeUnit.MILLISECONDS);
        return timed.handle((decision, error) -> {
            if (error == null) {
                return judged(policy, full, decision, System.nanoTime() - started);
            }
            Throwable cause = unwrapped(error);
            if (!isRedisFailure(cause)) {
                throw new CompletionException(cause);
            }
            call.cancel(false);
            return failed(policy, full, cause, within);
        });
    }

    /**
     * The verdicts, waited for on this thread (the servlet stack's): at most the timeout each.
     *
     * @param checks the request's limits, in order
     * @return the verdicts
     */
    public List<Verdict> decideNow(List<Check> checks) {
        try {
            return decideAll(checks).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking the rate limit", e);
        } catch (ExecutionException e) {
            Throwable cause = unwrapped(e);
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }

    /**
     * Once the response's status is known (null: the handler threw): gives the request's units
     * back when it does not count under the policy. A refund that fails is logged: the response
     * is already decided.
     *
     * @param verdict the request's verdict
     * @param status the response's status, or null
     * @return completes once the refund, if any, is answered or has failed
     */
    public CompletableFuture<Void> settle(Verdict verdict, Integer status) {
        Decision decision = verdict.decision();
        if (decision == null || !decision.allowed() || !verdict.policy().count().refunds(status)) {
            return CompletableFuture.completedFuture(null);
        }
        return verdict.policy().refund(limiter, verdict.key()).toCompletableFuture()
                .orTimeout(timeout(verdict.policy()).toMillis(), TimeUnit.MILLISECONDS)
                .handle((refunded, error) -> {
                    if (error != null) {
                        Throwable cause = unwrapped(error);
                        LOG.error("winlimit: refunding a request that does not count failed: " + errorName(cause) + ": "
                                + cause.getMessage());
                    }
                    return null;
                });
    }

    private Verdict judged(RatePolicy policy, String key, Decision decision, long nanos) {
        boolean shadowed = policy.shadow() && !decision.allowed();
        meters.decided(policy.name(), decision, shadowed, nanos);
        Map<String, String> headers = decision.headers(policy.style());
        if (decision.allowed()) {
            return new Verdict(200, headers, decision, policy, key);
        }
        if (!shadowed) {
            return new Verdict(429, headers, decision, policy, key);
        }
        headers = ShadowLog.shadowFields(headers);
        String warning = shadowLog.record(key, decision);
        if (warning != null) {
            LOG.warn(warning);
        }
        return new Verdict(200, headers, decision, policy, key);
    }

    private Duration timeout(RatePolicy policy) {
        return policy.timeout() != null ? policy.timeout() : timeout;
    }

    private Verdict failed(RatePolicy policy, String key, Throwable error, Duration within) {
        // Connection refused, no answer in time, OOM, a server without the module: the limiter
        // cannot decide. Logged without a stack trace: an outage would print one per request.
        meters.failed(policy.name());
        LOG.error("winlimit: rate limit check for " + Json.quote(key) + " failed, failing "
                + (policy.failOpen() ? "open" : "closed") + ": " + errorName(error) + ": " + message(error, within));
        return new Verdict(policy.failOpen() ? 200 : 503, Map.of(), null, policy, key);
    }

    private static String message(Throwable error, Duration within) {
        if (error instanceof TimeoutException || error instanceof RedisTimeoutException) {
            return new CheckTimedOutException(within).getMessage();
        }
        return String.valueOf(error.getMessage());
    }

    /** The error's class name; TimeoutError for no answer in time, as the other clients write it. */
    static String errorName(Throwable error) {
        if (error instanceof TimeoutException || error instanceof RedisTimeoutException
                || error instanceof CheckTimedOutException) {
            return "TimeoutError";
        }
        return error.getClass().getSimpleName();
    }

    /**
     * Whether {@code error} is Redis failing (so the policy fails open or closed), not a bug.
     *
     * @param error the check's error, unwrapped
     * @return true for Redis failing or late
     */
    public static boolean isRedisFailure(Throwable error) {
        return error instanceof WinlimitException || error instanceof TimeoutException
                || error instanceof CheckTimedOutException || error instanceof java.io.IOException
                || isDataAccessFailure(error);
    }

    private static boolean isDataAccessFailure(Throwable error) {
        for (Class<?> c = error.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals("org.springframework.dao.DataAccessException")) {
                return true;
            }
        }
        return false;
    }

    static Throwable unwrapped(Throwable error) {
        Throwable out = error;
        while ((out instanceof CompletionException || out instanceof ExecutionException) && out.getCause() != null) {
            out = out.getCause();
        }
        return out;
    }
}
