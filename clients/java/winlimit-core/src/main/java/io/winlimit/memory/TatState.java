package io.winlimit.memory;

import java.math.BigInteger;
import java.util.List;
import java.util.Set;

/**
 * GCRA: the theoretical arrival time, exactly ms + rem / den ms, written with den = limit; a
 * TAT written with another limit is read rounded up. A block keeps its end beside the TAT,
 * which it pushed so that the next unit arrives when it ends. Exact in BigInteger: now times
 * the limit passes 2^63.
 */
final class TatState extends State {
    private BigInteger[] tat;
    private Long blockedUntil;

    @Override
    String kind() {
        return "tat";
    }

    private static BigInteger big(long v) {
        return BigInteger.valueOf(v);
    }

    private static BigInteger ceilDiv(BigInteger x, BigInteger d) {
        BigInteger[] qr = x.divideAndRemainder(d);
        return qr[1].signum() > 0 ? qr[0].add(BigInteger.ONE) : qr[0];
    }

    private static BigInteger floorDiv(BigInteger x, BigInteger d) {
        BigInteger[] qr = x.divideAndRemainder(d);
        return qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
    }

    /** The TAT in units of 1/limit ms, at least now. */
    private BigInteger units(long now, BigInteger limit) {
        BigInteger nowU = big(now).multiply(limit);
        if (tat == null || expiresAt == null || expiresAt <= now) {
            return nowU;
        }
        BigInteger rem = tat[2].equals(limit) ? tat[1] : ceilDiv(tat[1].multiply(limit), tat[2]);
        return tat[0].multiply(limit).add(rem).max(nowU);
    }

    private void write(BigInteger tatU, BigInteger l, Long blocked) {
        BigInteger ms = floorDiv(tatU, l);
        BigInteger rem = tatU.subtract(ms.multiply(l));
        tat = new BigInteger[] {ms, rem, l};
        expiresAt = ms.longValue() + (rem.signum() != 0 ? 1 : 0);
        blockedUntil = blocked;
    }

    @Override
    long[] decide(long now, List<String> words, boolean peek, long maxLimit, Set<String> refused) {
        Requests.Gcra request = Parse.gcra(words);
        Parse.refuseOptions(refused, words);
        Parse.checkMode(request.extras(), peek);
        return decide(now, request, peek);
    }

    long[] decide(long now, Requests.Gcra request, boolean peek) {
        BigInteger l = big(request.limit());
        BigInteger p = big(request.periodMs());
        boolean live = expiresAt != null && expiresAt > now;
        Long blocked = live ? Block.inForce(blockedUntil, now) : null;
        BigInteger tatU = units(now, l);
        BigInteger nowU = big(now).multiply(l);
        if (request.extras().refund() != null) {
            if (blocked == null && tatU.compareTo(nowU) > 0) {
                // The TAT back by n emission intervals, never before now (a full bucket: no key).
                BigInteger after = tatU.subtract(big(request.extras().refund()).multiply(p));
                if (after.compareTo(nowU) <= 0) {
                    tat = null;
                    expiresAt = now;
                    blockedUntil = null;
                } else {
                    write(after, l, null);
                }
            }
            return decide(now, request.asPeek(), true);
        }
        BigInteger debt = tatU.subtract(nowU);
        BigInteger capacity = big(request.burst()).multiply(p);
        long[] reply;
        boolean records = false;
        if (request.cost() > request.burst()) {
            reply = new long[] {0, request.burst(), whole(capacity, debt, p, request.burst()), Block.NEVER, ceilDiv(debt, l).longValue()};
        } else {
            BigInteger cost = big(request.cost()).multiply(p);
            boolean allowed = debt.add(cost).compareTo(capacity) <= 0;
            records = allowed && !peek;
            BigInteger after = records ? debt.add(cost) : debt;
            long retry = allowed ? 0 : ceilDiv(debt.add(cost).subtract(capacity), l).longValue();
            reply = new long[] {allowed ? 1 : 0, request.burst(), whole(capacity, after, p, request.burst()), retry,
                    ceilDiv(after, l).longValue()};
        }
        if (blocked != null) {
            return Block.whileBlocked(reply, now, blocked);
        }
        if (records) {
            write(tatU.add(big(request.cost()).multiply(p)), l, null);
        }
        Long until = Block.starts(reply, peek, request.extras().blockMs(), now);
        if (until == null) {
            return reply;
        }
        BigInteger pushed = big(until).multiply(l).add(big(request.burst() - 1).multiply(p));
        write(tatU.max(pushed), l, until);
        return decide(now, request.withoutExtras(), true);
    }

    /** Whole units left in the bucket given its debt. */
    private static long whole(BigInteger capacity, BigInteger debt, BigInteger p, long burst) {
        BigInteger room = capacity.subtract(debt).max(BigInteger.ZERO);
        return floorDiv(room, p).min(big(burst)).longValue();
    }
}
