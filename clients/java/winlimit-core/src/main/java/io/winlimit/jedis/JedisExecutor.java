package io.winlimit.jedis;

import io.winlimit.model.MissingPermissionException;
import io.winlimit.model.RedisServerException;
import io.winlimit.model.RedisUnavailableException;
import io.winlimit.spi.RedisCommand;
import io.winlimit.spi.RedisExecutor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The executor over Jedis: a {@link UnifiedJedis} ({@code JedisPooled}, {@code JedisCluster})
 * or one {@link Jedis} connection. Jedis blocks: each future is complete when {@link #send}
 * returns, and Jedis's own socket timeout bounds the wait. In a cluster every command goes to
 * the node serving the limiter's key.
 */
public final class JedisExecutor implements RedisExecutor {
    private final UnifiedJedis unified;
    private final Jedis jedis;

    /**
     * An executor over a client of one server or a cluster.
     *
     * @param unified the client, left open
     * @throws IllegalArgumentException if {@code unified} is null
     */
    public JedisExecutor(UnifiedJedis unified) {
        if (unified == null) {
            throw new IllegalArgumentException("the UnifiedJedis must not be null");
        }
        this.unified = unified;
        this.jedis = null;
    }

    /**
     * Over one connection, e.g. the one Spring's JedisConnectionFactory lends for a call.
     *
     * @param jedis the connection, left open
     * @throws IllegalArgumentException if {@code jedis} is null
     */
    public JedisExecutor(Jedis jedis) {
        if (jedis == null) {
            throw new IllegalArgumentException("the Jedis connection must not be null");
        }
        this.unified = null;
        this.jedis = jedis;
    }

    @Override
    public CompletableFuture<Object> send(RedisCommand command) {
        List<byte[]> args = command.args();
        ProtocolCommand name = () -> args.get(0);
        byte[][] rest = args.subList(1, args.size()).toArray(new byte[0][]);
        try {
            Object reply = unified != null ? unified.sendCommand(command.key(), name, rest) : jedis.sendCommand(name, rest);
            return CompletableFuture.completedFuture(reply);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(translate(e));
        }
    }

    /**
     * Jedis's errors as winlimit's: a server's error with its text, anything else as Redis
     * unavailable.
     *
     * @param error what Jedis threw
     * @return a RedisServerException (MissingPermissionException for NOPERM) or a
     *     RedisUnavailableException
     */
    public static RuntimeException translate(Throwable error) {
        Throwable cause = error;
        while (!(cause instanceof JedisException) && cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        if (cause instanceof JedisDataException e) {
            String text = e.getMessage();
            return text != null && text.startsWith("NOPERM")
                    ? new MissingPermissionException(text, e) : new RedisServerException(text, e);
        }
        return new RedisUnavailableException(String.valueOf(cause.getMessage()), cause);
    }

    @Override
    public String nodeOf(byte[] key) {
        if (!(unified instanceof JedisCluster cluster)) {
            return "";
        }
        try (Connection connection = cluster.getConnectionFromSlot(redis.clients.jedis.util.JedisClusterCRC16.getSlot(key))) {
            return connection.toString(); // names the node's host and port
        }
    }

    @Override
    public boolean nonBlocking() {
        return false;
    }

    @Override
    public String describe() {
        return unified instanceof JedisCluster ? "Jedis JedisCluster" : unified != null ? "Jedis UnifiedJedis" : "Jedis";
    }
}
