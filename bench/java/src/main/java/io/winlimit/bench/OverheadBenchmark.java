package io.winlimit.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.winlimit.AsyncLimiter;
import io.winlimit.Limiter;
import io.winlimit.LimiterConfig;
import io.winlimit.lettuce.WinlimitLettuce;
import io.winlimit.model.BackendChoice;
import io.winlimit.model.Decision;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code Limiter.fixed} against a bare Lettuce dispatch of the same WINLIMIT.FIXED line (a key of
 * its own, the same window and limit), sync and async, on one connection to a redis-server with
 * the module at port {@code -Dwinlimit.bench.port}. The limit is never reached: every call is a
 * recording, allowed call. The limiter is the default one (timeout and breaker on), on the
 * module by name so that no detection call runs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class OverheadBenchmark {
    static final long WINDOW_MS = 60_000;
    static final long LIMIT = 1_000_000_000_000L;
    private static final ProtocolKeyword FIXED = new ProtocolKeyword() {
        private final byte[] name = "WINLIMIT.FIXED".getBytes(StandardCharsets.US_ASCII);

        @Override
        public byte[] getBytes() {
            return name;
        }

        @Override
        public String toString() {
            return "WINLIMIT.FIXED";
        }
    };
    private static final byte[] BARE_KEY = "bench:bare".getBytes(StandardCharsets.UTF_8);

    private RedisClient client;
    private StatefulRedisConnection<byte[], byte[]> connection;
    private Limiter limiter;
    private AsyncLimiter asyncLimiter;

    @Setup(Level.Trial)
    public void connect() {
        int port = Integer.getInteger("winlimit.bench.port");
        client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        connection = client.connect(ByteArrayCodec.INSTANCE);
        asyncLimiter = WinlimitLettuce.asyncLimiter(connection, LimiterConfig.defaults().backend(BackendChoice.MODULE));
        limiter = asyncLimiter.sync();
    }

    @TearDown(Level.Trial)
    public void close() {
        connection.close();
        client.shutdown();
    }

    private static CommandArgs<byte[], byte[]> line() {
        return new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(BARE_KEY).add(WINDOW_MS).add(LIMIT);
    }

    /** The bare call, sync: also {@link InterleavedTime}'s. */
    static List<Object> bareSync(StatefulRedisConnection<byte[], byte[]> connection) {
        return connection.sync().dispatch(FIXED, new NestedMultiOutput<>(ByteArrayCodec.INSTANCE), line());
    }

    /** The bare call, async, awaited: also {@link InterleavedTime}'s. */
    static List<Object> bareAsync(StatefulRedisConnection<byte[], byte[]> connection) {
        return connection.async().dispatch(FIXED, new NestedMultiOutput<>(ByteArrayCodec.INSTANCE), line())
                .toCompletableFuture().join();
    }

    @Benchmark
    public List<Object> bareSync() {
        return bareSync(connection);
    }

    @Benchmark
    public Decision limiterSync() {
        return limiter.fixed("bench:limiter", Duration.ofMillis(WINDOW_MS), LIMIT);
    }

    @Benchmark
    public List<Object> bareAsync() {
        return bareAsync(connection);
    }

    @Benchmark
    public Decision limiterAsync() {
        return asyncLimiter.fixed("bench:limiter", Duration.ofMillis(WINDOW_MS), LIMIT).toCompletableFuture().join();
    }
}
