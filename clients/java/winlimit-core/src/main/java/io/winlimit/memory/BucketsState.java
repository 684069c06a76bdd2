package io.winlimit.memory;

import io.winlimit.memory.Windows.PairState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** The bucketed log: units per bucket of bucketMs, by bucket start. */
final class BucketsState extends State {
    private final long bucketMs;
    private final TreeMap<Long, Long> units = new TreeMap<>();
    private Long blockedUntil;

    BucketsState(long bucketMs) {
        this.bucketMs = bucketMs;
    }

    @Override
    String kind() {
        return "buckets";
    }

    /** The first bucket start s that counts: now - (s + b - 1) < windowMs. */
    private long firstCounted(long now, long windowMs) {
        long b = bucketMs;
        return Parse.ceilDiv(now - windowMs - b + 2, b) * b;
    }

    @Override
    long[] decide(long now, List<String> words, boolean peek, long maxLimit, Set<String> refused) {
        Requests.Slide request = Parse.slide(words, maxLimit);
        Parse.refuseOptions(refused, words);
        Parse.checkMode(request.extras(), peek);
        return decide(now, request, peek);
    }

    long[] decide(long now, Requests.Slide request, boolean peek) {
        long b = bucketMs;
        if (request.bucketMs() == null || request.bucketMs() != b) {
            throw Parse.error("BUCKET " + (request.bucketMs() == null ? "undefined" : request.bucketMs())
                    + " differs from the BUCKET " + b + " this key was written with");
        }
        long largest = request.largest();
        units.headMap(firstCounted(now, largest)).clear();
        Long blocked = Block.inForce(blockedUntil, now);
        if (request.extras().refund() != null) {
            if (blocked == null) {
                refund(now, request.extras().refund());
            }
            return decide(now, request.asPeek(), true);
        }
        List<PairState> pairs = new ArrayList<>();
        for (Requests.Pair p : request.windows()) {
            pairs.add(pair(now, p.windowMs(), p.limit(), request.cost()));
        }
        boolean allowed = pairs.stream().allMatch(p -> p.waitMs == 0);
        boolean records = allowed && !peek;
        Long newest = units.isEmpty() ? null : units.lastKey();
        long current = Math.floorDiv(now, b) * b;
        if (records) {
            newest = newest == null ? current : Math.max(newest, current);
        }
        Windows.settle(pairs, records ? request.cost() : 0, newest == null ? null : newest + b - 1, now);
        long[] reply = Windows.bind(pairs, allowed);
        if (blocked != null) {
            return Block.whileBlocked(reply, now, blocked);
        }
        if (records && newest != null) {
            // Never into a bucket older than the newest (a clock that stepped back).
            units.merge(newest, request.cost(), Long::sum);
            expiresAt = newest + b - 1 + largest;
        }
        Long until = Block.starts(reply, peek, request.extras().blockMs(), now);
        if (until == null) {
            return reply;
        }
        blockedUntil = until;
        expiresAt = Math.max(expiresAt == null ? until : expiresAt, until);
        return Block.whileBlocked(reply, now, until);
    }

    /** Up to n units leave the newest buckets first; a ring left empty goes. */
    private void refund(long now, long n) {
        long left = n;
        for (Long s : new ArrayList<>(units.descendingKeySet())) {
            long u = units.get(s);
            long taken = Math.min(left, u);
            left -= taken;
            if (u == taken) {
                units.remove(s);
            } else {
                units.put(s, u - taken);
            }
        }
        if (units.isEmpty() && expiresAt != null) {
            expiresAt = now;
        }
    }

    private PairState pair(long now, long windowMs, long limit, long cost) {
        long first = firstCounted(now, windowMs);
        Map<Long, Long> counted = units.tailMap(first, true);
        long total = counted.values().stream().mapToLong(Long::longValue).sum();
        // Buckets leave oldest first: the one whose departure frees enough room.
        long wait = Windows.waitFor(cost, limit, total, () -> {
            long freed = 0;
            long freeing = first;
            for (Map.Entry<Long, Long> e : counted.entrySet()) {
                freeing = e.getKey();
                freed += e.getValue();
                if (freed >= total + cost - limit) {
                    break;
                }
            }
            return freeing + bucketMs - 1 + windowMs - now;
        });
        return new PairState(windowMs, limit, Windows.remainingOf(limit, total), wait);
    }
}
