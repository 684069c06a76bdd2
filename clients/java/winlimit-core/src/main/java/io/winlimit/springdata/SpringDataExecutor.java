package io.winlimit.springdata;

import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.winlimit.jedis.JedisExecutor;
import io.winlimit.lettuce.LettuceExecutor;
import io.winlimit.model.RedisUnavailableException;
import io.winlimit.spi.RedisCommand;
import io.winlimit.spi.RedisExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;

/**
 * The executor over Spring Data Redis. Spring's own {@code RedisConnection.execute} is not
 * used: it reads the reply of a command it does not know as one value, and winlimit's are
 * arrays. Commands go through the native client under the factory instead:
 *
 * <ul>
 *   <li>Lettuce: the factory's native connection (its shared one, by default), taken once and
 *   kept, so a call borrows nothing and never blocks: it is dispatched on Lettuce's own async
 *   API, and in a cluster a key's node is read from the cluster's partitions. Taken again only
 *   if that connection was closed for good (the factory was reset); a connection that is
 *   merely reconnecting stays the one to use. The factory connects synchronously, so taking
 *   it runs on a thread of winlimit's own ({@link #connecting}), never on the caller's: a
 *   WebFlux or gateway call comes on a Netty event loop, which a connect of seconds (a cold
 *   start on a loaded machine, or Redis down until the connect timeout) would hold and every
 *   request on that loop with it.
 *   <li>Jedis (blocking, so servlet applications only): each command borrows a connection from
 *   the factory and gives it back.
 * </ul>
 */
public final class SpringDataExecutor implements RedisExecutor {
    private final RedisConnectionFactory factory;
    private final boolean lettuce;
    // Lettuce: the native connection every command goes through, and the Spring connection
    // that holds it (kept open: with a pooling factory, closing it would give the native one back).
    private volatile LettuceExecutor lettuceExecutor;
    private RedisConnection heldConnection;
    // The attempt to take it under way, if any (guarded by this).
    private CompletableFuture<Void> taking;
    // Jedis: whether the factory's connections are cluster connections, once seen: a single
    // server is one node, named without borrowing a connection.
    private volatile Boolean cluster;

    /**
     * An executor over a Lettuce or Jedis factory; no connection is taken from it until the first
     * command.
     *
     * @param factory the factory, left as it is
     * @throws IllegalArgumentException if {@code factory} is null, or neither a
     *     LettuceConnectionFactory nor a JedisConnectionFactory
     */
    public SpringDataExecutor(RedisConnectionFactory factory) {
        if (factory == null) {
            throw new IllegalArgumentException("the RedisConnectionFactory must not be null");
        }
        if (isLettuce(factory)) {
            this.lettuce = true;
        } else if (isJedis(factory)) {
            this.lettuce = false;
        } else {
            throw new IllegalArgumentException("winlimit works with Spring Data Redis's LettuceConnectionFactory and "
                    + "JedisConnectionFactory, not " + factory.getClass().getName());
        }
        this.factory = factory;
    }

    private static boolean isLettuce(Object factory) {
        try {
            return factory instanceof LettuceConnectionFactory;
        } catch (NoClassDefFoundError e) { // Lettuce is not on the classpath
            return false;
        }
    }

    private static boolean isJedis(Object factory) {
        try {
            return factory instanceof JedisConnectionFactory;
        } catch (NoClassDefFoundError e) { // Jedis is not on the classpath
            return false;
        }
    }

    @Override
    public CompletableFuture<Object> send(RedisCommand command) {
        if (lettuce) {
            LettuceExecutor executor = openExecutor();
            if (executor != null) {
                return executor.send(command);
            }
            return lastTaking().thenCompose(taken -> {
                LettuceExecutor now = openExecutor();
                return now != null ? now.send(command)
                        : CompletableFuture.failedFuture(new RedisUnavailableException("the connection was closed", null));
            });
        }
        return withBorrowed(executor -> executor.send(command));
    }

    /** Lettuce: the connection's node for {@code key}; "" while no connection is taken yet
     * (the call then waits for it in {@link #send}). */
    @Override
    public String nodeOf(byte[] key) {
        if (lettuce) {
            LettuceExecutor executor = openExecutor();
            return executor == null ? "" : executor.nodeOf(key);
        }
        if (Boolean.FALSE.equals(cluster)) {
            return "";
        }
        return withBorrowed(executor -> CompletableFuture.completedFuture((Object) executor.nodeOf(key))).join().toString();
    }

    /** Lettuce: null once the native connection is taken and open; until then, the attempt to
     * take it (started here if none is under way). Jedis: null, as it borrows per call. */
    @Override
    public CompletableFuture<Void> connecting() {
        if (!lettuce || openExecutor() != null) {
            return null;
        }
        return take();
    }

    private LettuceExecutor openExecutor() {
        LettuceExecutor known = lettuceExecutor;
        return known != null && !known.isClosed() ? known : null;
    }

    /** The last attempt to take the connection, or a new one if none was made: a call that
     * waited for an attempt that failed fails with it, and makes no second one. */
    private synchronized CompletableFuture<Void> lastTaking() {
        return taking != null ? taking : take();
    }

    /** The attempt to take the factory's native Lettuce connection: the one under way, or a new
     * one on {@link Connecting}'s thread. It fails with RedisUnavailableException (wrapped, as a
     * CompletableFuture wraps it) when the factory cannot connect. */
    private synchronized CompletableFuture<Void> take() {
        if (taking == null || taking.isDone()) {
            taking = CompletableFuture.runAsync(this::takeNow, Connecting.THREADS);
        }
        return taking;
    }

    /** Takes the connection, blocking: on a thread of winlimit's own only. What fails is
     * thrown as RedisUnavailableException. */
    private void takeNow() {
        if (openExecutor() != null) {
            return;
        }
        RedisConnection connection;
        LettuceExecutor executor;
        try {
            connection = factory.getConnection();
            executor = (LettuceExecutor) nativeExecutor(connection.getNativeConnection());
        } catch (RuntimeException e) {
            throw new RedisUnavailableException(String.valueOf(e.getMessage()), e);
        }
        synchronized (this) {
            if (heldConnection != null) {
                heldConnection.close();
            }
            heldConnection = connection;
            lettuceExecutor = executor;
        }
    }

    /** Runs {@code use} with the native client of a borrowed connection, given back once the
     * future completes. */
    private CompletableFuture<Object> withBorrowed(Function<RedisExecutor, CompletableFuture<Object>> use) {
        RedisConnection connection;
        try {
            connection = factory.getConnection();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new RedisUnavailableException(String.valueOf(e.getMessage()), e));
        }
        cluster = connection instanceof org.springframework.data.redis.connection.RedisClusterConnection;
        CompletableFuture<Object> out;
        try {
            out = use.apply(nativeExecutor(connection.getNativeConnection()));
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        }
        out.whenComplete((reply, error) -> connection.close());
        return out;
    }

    private static RedisExecutor nativeExecutor(Object client) {
        if (client instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
            return new LettuceExecutor(cluster.getStatefulConnection());
        }
        if (client instanceof RedisAsyncCommands<?, ?> single) {
            return new LettuceExecutor(single.getStatefulConnection());
        }
        RedisExecutor jedis = JedisNatives.executor(client);
        if (jedis != null) {
            return jedis;
        }
        throw new IllegalStateException("winlimit cannot send through " + client.getClass().getName());
    }

    /** Jedis's types, in a class of their own: an application with Lettuce only has no Jedis
     * on its classpath, and verifying nativeExecutor must not need them. */
    private static final class JedisNatives {
        static RedisExecutor executor(Object client) {
            if (client instanceof JedisCluster cluster) {
                return new JedisExecutor(cluster);
            }
            if (client instanceof Jedis jedis) {
                return new JedisExecutor(jedis);
            }
            return null;
        }
    }

    @Override
    public boolean nonBlocking() {
        return lettuce;
    }

    @Override
    public String describe() {
        return "Spring Data Redis " + factory.getClass().getSimpleName();
    }
}
