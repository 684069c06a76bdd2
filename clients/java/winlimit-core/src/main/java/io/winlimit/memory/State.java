package io.winlimit.memory;

import java.util.List;
import java.util.Set;

/** One key's state in the memory limiter: the module's decision on it for one command line. */
abstract class State {
    /** When nothing in it counts any more (ms), after which the store drops it; null while empty. */
    Long expiresAt;

    /** The five-integer reply to the command's words after the key, recording in place; once
     * the kind's parser has taken the words, the {@code refused} options (by their client names,
     * Command.foreignShape) are refused. */
    abstract long[] decide(long now, List<String> words, boolean peek, long maxLimit, Set<String> refused);

    /** The kind of key, for WRONGTYPE. */
    abstract String kind();
}
