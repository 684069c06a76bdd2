package io.winlimit;

import io.winlimit.protocol.Call;

/** What decides a call while Redis fails or the breaker is open: the very command line that
 * would have gone to Redis ({@link io.winlimit.memory.MemoryLimiter} is one). */
public interface Fallback {
    /** The decision for {@code call}, made without Redis; backend MEMORY. */
    Decision decide(Call call);
}
