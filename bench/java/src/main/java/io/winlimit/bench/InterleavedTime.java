package io.winlimit.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.winlimit.AsyncLimiter;
import io.winlimit.Limiter;
import io.winlimit.LimiterConfig;
import io.winlimit.lettuce.WinlimitLettuce;
import io.winlimit.model.BackendChoice;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * The time target of issue 45 (the limiter within 5% of the bare call), as ratios from one run:
 * JMH's separate trials of each benchmark drift with the machine further than 5% (the bare call
 * alone moved 70-200 us between runs), so here the four calls of {@link OverheadBenchmark} take
 * turns in one JVM on one connection, a batch each per round, in a rotated order. Each round
 * gives the limiter's time per call over the bare call's, sync and async; the medians of those
 * ratios over the rounds, and their quartiles, are the result.
 *
 * <p>Usage: {@code InterleavedTime [rounds] [calls per batch]} with {@code -Dwinlimit.bench.port}.
 */
public final class InterleavedTime {
    private static final Duration WINDOW = Duration.ofMillis(OverheadBenchmark.WINDOW_MS);
    private static final long LIMIT = OverheadBenchmark.LIMIT;

    private InterleavedTime() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", Integer.getInteger("winlimit.bench.port")));
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            AsyncLimiter async = WinlimitLettuce.asyncLimiter(connection, LimiterConfig.defaults().backend(BackendChoice.MODULE));
            Limiter sync = async.sync();
            Runnable[] calls = {
                () -> OverheadBenchmark.bareSync(connection),
                () -> sync.fixed("bench:limiter", WINDOW, LIMIT),
                () -> OverheadBenchmark.bareAsync(connection),
                () -> async.fixed("bench:limiter", WINDOW, LIMIT).toCompletableFuture().join(),
            };
            for (int i = 0; i < 10; i++) { // warm-up: the JIT compiles every path
                for (Runnable call : calls) {
                    time(call, batch);
                }
            }
            report(measure(calls, rounds, batch), rounds, batch);
        } finally {
            client.shutdown();
        }
    }

    /** ns per call of each of the calls in each round, the order rotated round by round. */
    private static double[][] measure(Runnable[] calls, int rounds, int batch) {
        double[][] nanos = new double[calls.length][rounds];
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < calls.length; k++) {
                int which = (k + round) % calls.length;
                nanos[which][round] = time(calls[which], batch);
            }
        }
        return nanos;
    }

    private static double time(Runnable call, int batch) {
        long start = System.nanoTime();
        for (int i = 0; i < batch; i++) {
            call.run();
        }
        return (System.nanoTime() - start) / (double) batch;
    }

    private static void report(double[][] nanos, int rounds, int batch) {
        String[] names = {"bare, sync", "Limiter.fixed, sync", "bare, async", "AsyncLimiter.fixed, async"};
        System.out.printf(Locale.ROOT, "%d rounds of %d calls each, in turns%n", rounds, batch);
        for (int i = 0; i < names.length; i++) {
            System.out.printf(Locale.ROOT, "%-28s median %.1f us per call (quartiles %.1f-%.1f)%n", names[i],
                    quartile(nanos[i], 2) / 1e3, quartile(nanos[i], 1) / 1e3, quartile(nanos[i], 3) / 1e3);
        }
        for (int[] pair : new int[][] {{1, 0}, {3, 2}}) {
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratios[r] = nanos[pair[0]][r] / nanos[pair[1]][r];
            }
            System.out.printf(Locale.ROOT, "%-28s %.3fx the bare call, per round (quartiles %.3f-%.3f)%n", names[pair[0]],
                    quartile(ratios, 2), quartile(ratios, 1), quartile(ratios, 3));
        }
    }

    private static double quartile(double[] values, int q) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, q * sorted.length / 4)];
    }
}
