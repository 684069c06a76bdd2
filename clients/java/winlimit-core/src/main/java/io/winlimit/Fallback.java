package io.winlimit;

import io.winlimit.model.Decision;
import io.winlimit.internal.protocol.Call;

/** What decides a call while Redis fails or the breaker is open: the very command line that
 * would have gone to Redis (the memory package's {@code MemoryLimiter} is one). */
public interface Fallback {
    /**
     * The decision for {@code call}, made without Redis; backend MEMORY.
     *
     * @param call the command line that would have gone to Redis, and the policies of its reply
     * @return the decision; called on the thread that saw Redis fail, so it must not block
     */
    Decision decide(Call call);
}
