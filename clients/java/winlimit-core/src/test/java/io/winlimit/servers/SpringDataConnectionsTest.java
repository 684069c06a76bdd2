package io.winlimit.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.winlimit.AsyncLimiter;
import io.winlimit.Limiter;
import io.winlimit.ReactiveLimiter;
import io.winlimit.model.RedisUnavailableException;
import io.winlimit.springdata.WinlimitSpringData;
import io.winlimit.support.CallDeadline;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Over Spring Data Redis's Lettuce factory, a call borrows no connection: the limiter takes
 * the factory's native connection once and dispatches every call on it, on a real server and
 * a real 3-primary cluster. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpringDataConnectionsTest {
    private static final int CALLS = 50;

    private RedisServer server;
    private RedisCluster cluster;
    private final List<LettuceConnectionFactory> factories = new java.util.ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        server = new RedisServer("redis-7.0", true);
        cluster = new RedisCluster("redis-7.0", true);
    }

    @AfterAll
    void stop() {
        factories.forEach(LettuceConnectionFactory::destroy);
        if (server != null) {
            server.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aFactoryWithoutASharedConnectionOpensOneConnectionInAllNotOnePerCall() throws Exception {
        LettuceConnectionFactory unstarted = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port()));
        unstarted.setShareNativeConnection(false);
        LettuceConnectionFactory factory = started(unstarted);
        Limiter limiter = WinlimitSpringData.limiter(factory, CallDeadline.config());
        long before = connectionsReceived();
        for (int i = 0; i < CALLS; i++) {
            assertTrue(limiter.fixed("dedicated", Duration.ofMinutes(1), CALLS).allowed());
        }
        // The limiter's one connection, and the one this INFO call itself opens.
        assertEquals(1 + 1, connectionsReceived() - before);
    }

    @Test
    void theReactiveLimiterTakesTheFactorysConnectionOnceForEveryCall() {
        CountingFactory factory = started(new CountingFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port())));
        ReactiveLimiter limiter = WinlimitSpringData.reactiveLimiter(factory, CallDeadline.config());
        for (int i = 0; i < CALLS; i++) {
            assertTrue(limiter.slide("reactive", Duration.ofMinutes(1), CALLS).block(Duration.ofSeconds(10)).allowed());
        }
        assertEquals(1, factory.borrowed.get());
    }

    @Test
    void theConnectionIsTakenOnAThreadOfWinlimitsOwnNotOnTheCallers() {
        // A WebFlux or gateway call comes on a Netty event loop, which the factory's blocking
        // connect must not hold.
        CountingFactory factory = started(new CountingFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port())));
        AsyncLimiter limiter = WinlimitSpringData.asyncLimiter(factory, CallDeadline.config());
        assertTrue(limiter.fixed("first", Duration.ofMinutes(1), 2).toCompletableFuture().join().allowed());
        assertTrue(limiter.fixed("first", Duration.ofMinutes(1), 2).toCompletableFuture().join().allowed());
        assertEquals(List.of("winlimit-connect"), factory.takenOn);
    }

    @Test
    void aCallWhileTheFactoryCannotConnectFailsAsUnavailable() throws Exception {
        int nothingListens;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            nothingListens = socket.getLocalPort();
        }
        CountingFactory factory = started(new CountingFactory(new RedisStandaloneConfiguration("127.0.0.1", nothingListens)));
        AsyncLimiter limiter = WinlimitSpringData.asyncLimiter(factory, CallDeadline.config());
        CompletionException failed = assertThrows(CompletionException.class,
                () -> limiter.fixed("nowhere", Duration.ofMinutes(1), 1).toCompletableFuture().join());
        assertInstanceOf(RedisUnavailableException.class, failed.getCause());
        assertEquals(List.of("winlimit-connect"), factory.takenOn);
    }

    @Test
    void inAClusterFindingEachKeysNodeBorrowsNoConnection() {
        CountingFactory factory = started(new CountingFactory(new RedisClusterConfiguration(List.of("127.0.0.1:" + cluster.port()))));
        Limiter limiter = WinlimitSpringData.limiter(factory, CallDeadline.config());
        for (int i = 0; i < CALLS; i++) {
            assertTrue(limiter.fixed("user:" + i, Duration.ofMinutes(1), 1).allowed());
        }
        assertEquals(1, factory.borrowed.get());
    }

    private long connectionsReceived() throws Exception {
        String stats = String.valueOf(server.call("INFO", "stats"));
        for (String line : stats.split("\r\n")) {
            if (line.startsWith("total_connections_received:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1));
            }
        }
        throw new IllegalStateException("INFO stats has no total_connections_received: " + stats);
    }

    private <T extends LettuceConnectionFactory> T started(T factory) {
        factory.afterPropertiesSet();
        factory.start();
        factories.add(factory);
        return factory;
    }

    /** Spring Data's own factory, counting the connections it is asked for. */
    private static final class CountingFactory extends LettuceConnectionFactory {
        final AtomicInteger borrowed = new AtomicInteger();
        final List<String> takenOn = new CopyOnWriteArrayList<>();

        CountingFactory(RedisStandaloneConfiguration configuration) {
            super(configuration);
        }

        CountingFactory(RedisClusterConfiguration configuration) {
            super(configuration);
        }

        @Override
        public RedisConnection getConnection() {
            borrowed.incrementAndGet();
            takenOn.add(Thread.currentThread().getName());
            return super.getConnection();
        }
    }
}
