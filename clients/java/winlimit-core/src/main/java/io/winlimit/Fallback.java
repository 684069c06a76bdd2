package io.winlimit;

import io.winlimit.model.Decision;
import io.winlimit.model.Policy;
import java.util.List;

/** What decides a call while Redis fails or the breaker is open: the very command line that
 * would have gone to Redis (the memory package's {@code MemoryLimiter} is one). */
public interface Fallback {
    /**
     * The decision for {@code commandLine}, made without Redis; backend MEMORY.
     *
     * @param commandLine the WINLIMIT command and its arguments, as the limiter would have sent
     *     them ({@code ["WINLIMIT.FIXED", "rl:ann", "60000", "5"]}); integers as decimal strings
     * @param policies the policies the decision reports, in the order of the line's windows
     * @return the decision; called on the thread that saw Redis fail, so it must not block
     */
    Decision decide(List<String> commandLine, List<Policy> policies);
}
