package io.winlimit.memory;

import java.util.List;
import java.util.Set;

/** The fixed window: a count and the window's end; a count above 10^12 is a block. */
final class CounterState extends State {
    private long count;

    @Override
    String kind() {
        return "counter";
    }

    @Override
    long[] decide(long now, List<String> words, boolean peek, long maxLimit, Set<String> refused) {
        Requests.Fixed request = Parse.fixed(words);
        Parse.refuseOptions(refused, words);
        Parse.checkMode(request.extras(), peek);
        return decide(now, request, peek);
    }

    long[] decide(long now, Requests.Fixed request, boolean peek) {
        boolean live = expiresAt != null && expiresAt > now;
        if (request.extras().refund() != null) {
            if (live && count > 0 && count <= Parse.MAX) {
                count = Math.max(count - request.extras().refund(), 0);
            }
            return decide(now, request.asPeek(), true);
        }
        long w = request.windowMs();
        long limit = request.limit();
        long cost = request.cost();
        long end = live ? expiresAt : request.align() ? (Math.floorDiv(now, w) + 1) * w : now + w;
        long current = live ? count : 0;
        boolean allowed = cost <= limit && current + cost <= limit;
        long after = allowed && !peek ? current + cost : current;
        long left = end - now;
        long retry = allowed ? 0 : cost > limit ? Block.NEVER : left;
        long[] reply = {allowed ? 1 : 0, limit, Windows.remainingOf(limit, after), retry, after > 0 ? left : 0};
        if (current > Parse.MAX) {
            return Block.whileBlocked(reply, now, end);
        }
        if (allowed && !peek) {
            count = after;
            expiresAt = end;
        }
        Long until = Block.starts(reply, peek, request.extras().blockMs(), now);
        if (until == null) {
            return reply;
        }
        // One expiry holds the block and the window: the later end.
        count = Parse.MAX + 1;
        expiresAt = Math.max(until, end);
        return Block.whileBlocked(reply, now, expiresAt);
    }
}
