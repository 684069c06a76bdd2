package io.winlimit.memory;

import io.winlimit.memory.Windows.PairState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/** The exact sliding log: one time per accepted unit, oldest first. */
final class LogState extends State {
    private List<Long> times = new ArrayList<>();
    private Long blockedUntil;

    @Override
    String kind() {
        return "log";
    }

    @Override
    long[] decide(long now, List<String> words, boolean peek, long maxLimit, Set<String> refused) {
        Requests.Slide request = Parse.slide(words, maxLimit);
        Parse.refuseOptions(refused, words);
        Parse.checkMode(request.extras(), peek);
        return decide(now, request, peek);
    }

    long[] decide(long now, Requests.Slide request, boolean peek) {
        long largest = request.largest();
        // Units that left the largest window count nowhere: drop them.
        times.removeIf(t -> t <= now - largest);
        Long blocked = Block.inForce(blockedUntil, now);
        if (request.extras().refund() != null) {
            if (blocked == null && !times.isEmpty()) {
                int keep = (int) Math.max(0, times.size() - Math.min(request.extras().refund(), times.size()));
                times = new ArrayList<>(times.subList(0, keep));
                if (times.isEmpty()) {
                    expiresAt = now;
                }
            }
            return decide(now, request.asPeek(), true);
        }
        long cost = request.cost();
        List<PairState> pairs = new ArrayList<>();
        for (Requests.Pair pair : request.windows()) {
            long w = pair.windowMs();
            long limit = pair.limit();
            long counted = times.stream().filter(t -> t > now - w).count();
            // Room comes once the unit limit - cost places from the newest leaves.
            long wait = Windows.waitFor(cost, limit, counted, () -> times.get((int) (times.size() - 1 - (limit - cost))) + w - now);
            pairs.add(new PairState(w, limit, Windows.remainingOf(limit, counted), wait));
        }
        boolean allowed = pairs.stream().allMatch(p -> p.waitMs == 0);
        boolean records = allowed && !peek;
        Long newest = times.isEmpty() ? null : times.get(times.size() - 1);
        if (records) {
            newest = newest == null ? now : Math.max(newest, now);
        }
        Windows.settle(pairs, records ? cost : 0, newest, now);
        long[] reply = Windows.bind(pairs, allowed);
        if (blocked != null) {
            return Block.whileBlocked(reply, now, blocked);
        }
        if (records) {
            for (long i = 0; i < cost; i++) {
                times.add(now);
            }
            Collections.sort(times);
            expiresAt = times.get(times.size() - 1) + largest;
        }
        Long until = Block.starts(reply, peek, request.extras().blockMs(), now);
        if (until == null) {
            return reply;
        }
        blockedUntil = until;
        expiresAt = Math.max(expiresAt == null ? until : expiresAt, until);
        return Block.whileBlocked(reply, now, until);
    }
}
