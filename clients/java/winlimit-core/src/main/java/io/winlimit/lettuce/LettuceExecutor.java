package io.winlimit.lettuce;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.winlimit.model.MissingPermissionException;
import io.winlimit.model.RedisServerException;
import io.winlimit.model.RedisUnavailableException;
import io.winlimit.spi.RedisCommand;
import io.winlimit.spi.RedisExecutor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The executor over a Lettuce connection, single server or cluster. Commands are dispatched
 * as they are, with the connection's own codec bypassed (the arguments are bytes), so any
 * {@code StatefulRedisConnection<K, V>} serves. In a cluster, a command with the key goes by
 * the key's slot (Lettuce follows MOVED); one without it to the node serving that slot.
 */
public final class LettuceExecutor implements RedisExecutor {
    private final StatefulConnection<?, ?> connection;
    private final StatefulRedisClusterConnection<?, ?> cluster;

    /**
     * An executor over one server's connection.
     *
     * @param connection the connection, left open
     * @throws IllegalArgumentException if {@code connection} is null
     */
    public LettuceExecutor(StatefulRedisConnection<?, ?> connection) {
        this.connection = require(connection);
        this.cluster = null;
    }

    /**
     * An executor over a cluster connection: each command goes to the node of its key.
     *
     * @param connection the connection, left open
     * @throws IllegalArgumentException if {@code connection} is null
     */
    public LettuceExecutor(StatefulRedisClusterConnection<?, ?> connection) {
        this.connection = require(connection);
        this.cluster = connection;
    }

    private static <T> T require(T connection) {
        if (connection == null) {
            throw new IllegalArgumentException("the Lettuce connection must not be null");
        }
        return connection;
    }

    @Override
    public CompletableFuture<Object> send(RedisCommand command) {
        if (cluster != null && command.keyIndex() < 0) {
            RedisClusterNode node = nodeServing(command.key());
            return cluster.getConnectionAsync(node.getNodeId())
                    .thenCompose(nodeConnection -> dispatch(nodeConnection, command));
        }
        return dispatch(connection, command);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static CompletableFuture<Object> dispatch(StatefulConnection<?, ?> target, RedisCommand command) {
        List<byte[]> args = command.args();
        byte[] name = args.get(0);
        int first = 1;
        ProtocolKeyword keyword = keyword(name);
        CommandArgs<byte[], byte[]> commandArgs = new CommandArgs<>(ByteArrayCodec.INSTANCE);
        for (int i = first; i < args.size(); i++) {
            if (i == command.keyIndex()) {
                commandArgs.addKey(args.get(i));
            } else {
                commandArgs.add(args.get(i));
            }
        }
        AsyncCommand<byte[], byte[], Object> sent = new AsyncCommand<>(new Command<>(keyword, new ReplyOutput(), commandArgs));
        ((StatefulConnection) target).dispatch(sent);
        // The AsyncCommand is the future: cancelling it cancels the command itself, which
        // Lettuce then never writes if it is still queued.
        CompletableFuture<Object> out = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterrupt) {
                sent.cancel(mayInterrupt);
                return super.cancel(mayInterrupt);
            }
        };
        sent.whenComplete((reply, error) -> {
            if (error == null) {
                out.complete(reply);
            } else {
                out.completeExceptionally(translate(error));
            }
        });
        return out;
    }

    private static ProtocolKeyword keyword(byte[] name) {
        return new ProtocolKeyword() {
            @Override
            public byte[] getBytes() {
                return name;
            }

            // Decoded only when asked (a log line, an error): a String per call otherwise.
            @Override
            public String toString() {
                return new String(name, StandardCharsets.UTF_8);
            }
        };
    }

    static Throwable translate(Throwable error) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (cause instanceof RedisCommandExecutionException e) {
            String text = e.getMessage();
            return text != null && text.startsWith("NOPERM")
                    ? new MissingPermissionException(text, e) : new RedisServerException(text, e);
        }
        return new RedisUnavailableException(String.valueOf(cause.getMessage()), cause);
    }

    private RedisClusterNode nodeServing(byte[] key) {
        RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
        if (node == null) {
            throw new RedisUnavailableException("no cluster node serves the slot of this key", null);
        }
        return node;
    }

    @Override
    public String nodeOf(byte[] key) {
        return cluster == null ? "" : nodeServing(key).getNodeId();
    }

    /**
     * Whether the connection was closed for good (not merely disconnected: Lettuce reconnects
     * on its own, and a reconnecting connection stays the one to use).
     *
     * @return true once the connection is closed
     */
    public boolean isClosed() {
        return connection instanceof RedisChannelHandler<?, ?> handler && handler.isClosed();
    }

    @Override
    public boolean nonBlocking() {
        return true;
    }

    @Override
    public String describe() {
        return cluster == null ? "Lettuce StatefulRedisConnection" : "Lettuce StatefulRedisClusterConnection";
    }
}
