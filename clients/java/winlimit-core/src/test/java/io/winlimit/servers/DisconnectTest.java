package io.winlimit.servers;

import io.winlimit.support.Readiness;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.winlimit.Limiter;
import io.winlimit.LimiterConfig;
import io.winlimit.lettuce.WinlimitLettuce;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.RedisTimeoutException;
import io.winlimit.model.RedisUnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A call made while Redis cannot answer is counted at most once. Lettuce's defaults (auto
 * reconnect, commands buffered while disconnected) would send a buffered call once the
 * connection is back; winlimit cancels the calls it gave up on, so they are never sent.
 */
class DisconnectTest {
    private static final Duration TIMEOUT = Duration.ofMillis(300);
    private RedisServer server;
    private RedisClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    private Limiter limiter(StatefulRedisConnection<String, String> connection) {
        return WinlimitLettuce.limiter(connection, LimiterConfig.defaults().timeout(TIMEOUT));
    }

    private StatefulRedisConnection<String, String> connect() {
        client = RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
        StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
        assertTrue(connection.getOptions().isAutoReconnect());
        assertEquals(ClientOptions.DisconnectedBehavior.DEFAULT, connection.getOptions().getDisconnectedBehavior());
        return connection;
    }

    @Test
    void aCallMadeWhileTheServerIsDownIsNeverSentOnceItIsBack() throws Exception {
        server = new RedisServer("redis-7.0", true);
        StatefulRedisConnection<String, String> connection = connect();
        Limiter limiter = limiter(connection);
        assertTrue(limiter.fixed("warm", Duration.ofMinutes(1), 5).allowed());
        int port = server.port();
        server.stop();
        // Buffered by Lettuce while it reconnects: the limiter gives up after its timeout.
        assertThrows(RedisTimeoutException.class, () -> limiter.fixed("lost", Duration.ofMinutes(1), 5));
        server.start(port);
        // A call made after the server is back is answered once Lettuce has reconnected; the
        // connection's queue is in order, so the cancelled call would have run before it.
        Decision after = awaitAnswer(limiter, "after");
        assertEquals(4, after.remaining());
        assertEquals(0L, server.call("EXISTS", "lost"), "the call the limiter gave up on was never sent");
    }

    @Test
    void aCallTheServerTookButDidNotAnswerInTimeIsCountedOnce() throws Exception {
        server = new RedisServer("redis-7.0", true);
        StatefulRedisConnection<String, String> connection = connect();
        Limiter limiter = limiter(connection);
        assertTrue(limiter.fixed("slow", Duration.ofMinutes(1), 5).allowed());
        server.pause();
        try {
            assertThrows(RedisTimeoutException.class, () -> limiter.fixed("slow", Duration.ofMinutes(1), 5));
        } finally {
            server.resume();
        }
        // The server read the call before it stopped answering: it runs once, and only once.
        Decision peek = limiter.fixed("slow", Duration.ofMinutes(1), 5, FixedOptions.defaults().peek(true));
        assertEquals(3, peek.remaining());
    }

    @Test
    void aRefusedConnectionFailsAsRedisUnavailable() throws Exception {
        server = new RedisServer("redis-7.0", true);
        StatefulRedisConnection<String, String> connection = connect();
        Limiter limiter = limiter(connection);
        server.close();
        server = null;
        RedisUnavailableException e = assertThrows(RedisUnavailableException.class,
                () -> limiter.fixed("k", Duration.ofMinutes(1), 5));
        assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
    }

    private static Decision awaitAnswer(Limiter limiter, String key) throws InterruptedException {
        long deadline = System.nanoTime() + Readiness.DEADLINE.toNanos();
        while (true) {
            try {
                return limiter.fixed(key, Duration.ofMinutes(1), 5);
            } catch (RedisUnavailableException notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                Thread.sleep(50);
            }
        }
    }
}
