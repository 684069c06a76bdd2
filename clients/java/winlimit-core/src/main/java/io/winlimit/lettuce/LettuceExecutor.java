package io.winlimit.lettuce;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
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
import java.util.ArrayList;
import java.util.Arrays;
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
        Sent sent = new Sent(new Command<>(keyword, new ReplyOutput(), commandArgs));
        ((StatefulConnection) target).dispatch(sent);
        return sent;
    }

    /**
     * The command Lettuce runs is the future returned: cancelling it cancels the command, which
     * Lettuce then never writes if it is still queued; its errors are translated as the SPI
     * says. (A second future completed from the command's would be two objects and a stage on
     * every call.)
     */
    private static final class Sent extends AsyncCommand<byte[], byte[], Object> {
        Sent(Command<byte[], byte[], Object> command) {
            super(command);
        }

        /** Lettuce's end of the command. An error reply takes the exceptional path here, since
         * AsyncCommand completes with it by a private method this class cannot translate in. */
        @Override
        public void complete() {
            CommandOutput<byte[], byte[], Object> output = getOutput();
            if (output != null && output.hasError()) {
                completeExceptionally(new RedisCommandExecutionException(output.getError()));
            } else {
                super.complete();
            }
        }

        @Override
        public boolean completeExceptionally(Throwable error) {
            return super.completeExceptionally(translate(error));
        }
    }

    /** A command's name as Lettuce takes it. Lettuce asks its text on every dispatch (to spot
     * AUTH, SELECT...), so the text is made once with it. */
    private static final class Keyword implements ProtocolKeyword {
        private final byte[] bytes;
        private final String text;

        Keyword(byte[] bytes, String text) {
            this.bytes = bytes;
            this.text = text;
        }

        Keyword(String name) {
            this(name.getBytes(StandardCharsets.UTF_8), name);
        }

        @Override
        public byte[] getBytes() {
            return bytes;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** The names the limiter sends on every call, made once. */
    private static final Keyword[] KNOWN = knownKeywords();

    private static Keyword[] knownKeywords() {
        List<Keyword> known = new ArrayList<>();
        for (io.winlimit.model.Command command : io.winlimit.model.Command.values()) {
            known.add(new Keyword(command.command()));
            known.add(new Keyword(command.command() + "_RO"));
        }
        for (String name : List.of("FCALL", "FCALL_RO", "EVALSHA")) {
            known.add(new Keyword(name));
        }
        return known.toArray(new Keyword[0]);
    }

    private static ProtocolKeyword keyword(byte[] name) {
        for (Keyword known : KNOWN) {
            if (known.bytes == name || Arrays.equals(known.bytes, name)) {
                return known;
            }
        }
        return new Keyword(name, new String(name, StandardCharsets.UTF_8));
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
