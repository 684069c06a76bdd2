package io.winlimit;

import io.winlimit.breaker.CircuitBreaker;
import io.winlimit.internal.library.Backends;
import io.winlimit.internal.protocol.Call;
import io.winlimit.model.Backend;
import io.winlimit.model.Decision;

/**
 * One call the breaker admitted, from its admission to its decision: the call's future. On the
 * direct path (the node known to serve the module, {@link Backends#direct}) it is also the
 * module command's timed send, so a call makes no stage of its own; otherwise the backends'
 * answer ends here ({@link #answered}).
 */
final class Deciding extends TimedSend<Decision> {
    final Call call;
    final String policy;
    final CircuitBreaker breaker;
    final CircuitBreaker.Action action;
    final long started = System.nanoTime();
    private final AsyncLimiter limiter;

    Deciding(AsyncLimiter limiter, Call call, String policy, CircuitBreaker breaker, CircuitBreaker.Action action) {
        this.limiter = limiter;
        this.call = call;
        this.policy = policy;
        this.breaker = breaker;
        this.action = action;
    }

    /** The module command's outcome (the direct path); a failure may still be answered by
     * another backend, as {@link Backends#afterModuleFailure} says. */
    @Override
    void settled(Object reply, Throwable error) {
        if (error == null) {
            finish(reply, Backend.MODULE, null);
        } else {
            limiter.backends().afterModuleFailure(call, error).whenComplete(this::answered);
        }
    }

    /** The backends' answer, or their error. */
    void answered(Backends.Answer answer, Throwable error) {
        if (error == null) {
            finish(answer.reply(), answer.backend(), null);
        } else {
            finish(null, null, error);
        }
    }

    private void finish(Object reply, Backend backend, Throwable error) {
        try {
            complete(error == null ? limiter.decided(this, reply, backend) : limiter.failed(this, error));
        } catch (Throwable e) {
            // As a stage would: what the decision threw (a bad reply, a fallback's error) is the
            // call's outcome.
            completeExceptionally(Backends.cause(e));
        }
    }
}
