package io.winlimit.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.winlimit.Limiter;
import io.winlimit.ReactiveLimiter;
import io.winlimit.springdata.WinlimitSpringData;
import io.winlimit.support.CallDeadline;
import java.time.Duration;
import java.util.List;
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

        CountingFactory(RedisStandaloneConfiguration configuration) {
            super(configuration);
        }

        CountingFactory(RedisClusterConfiguration configuration) {
            super(configuration);
        }

        @Override
        public RedisConnection getConnection() {
            borrowed.incrementAndGet();
            return super.getConnection();
        }
    }
}
