package io.winlimit.spi;

import java.util.concurrent.CompletableFuture;

/**
 * What a limiter needs of a Redis client: one small interface per client (Lettuce, Jedis,
 * Spring Data Redis), so the limiter, its protocol and its backends are written once.
 *
 * <p>Replies are normalised: an integer is a {@link Long}, a bulk or simple string a
 * {@code byte[]}, an array a {@code List<Object>}, a nil {@code null}. A server error completes
 * the future with {@link io.winlimit.model.RedisServerException} carrying the server's text unchanged
 * (or its {@link io.winlimit.model.MissingPermissionException} subclass for a NOPERM error); a lost
 * or refused connection with {@link io.winlimit.model.RedisUnavailableException}.
 *
 * <p>Cancelling the returned future cancels the command where it has not been written yet, so
 * a command the limiter gave up on is never sent later.
 */
public interface RedisExecutor {

    /**
     * Sends one command to the server (in a cluster, the node serving the command's key).
     *
     * @param command the command line
     * @return completes with the reply, normalised as above, or exceptionally with a
     *     WinlimitException
     */
    CompletableFuture<Object> send(RedisCommand command);

    /**
     * A name for the server or cluster node serving {@code key}: backends are detected once per
     * name. "" for a single server.
     *
     * @param key the limiter's key
     * @return the node's name, "" for a single server
     */
    String nodeOf(byte[] key);

    /**
     * Null when {@link #send} can go now. A client that connects on first use, off the caller's
     * thread, returns instead a future that completes when that connection attempt ends,
     * normally or not: a limiter waits for it before its call and its timeout start, as a call
     * through the client itself would wait for its connection, within the client's own connect
     * timeout. The default: null.
     *
     * @return null, or the attempt to connect under way
     */
    default CompletableFuture<Void> connecting() {
        return null;
    }

    /**
     * True when {@link #send} never blocks the calling thread (Lettuce, reactive Spring Data
     * Redis); false for a blocking client such as Jedis, whose futures complete before send
     * returns. Reactive views exist only over a non-blocking executor.
     *
     * @return true if {@link #send} never blocks
     */
    boolean nonBlocking();

    /**
     * What this executor talks to, for messages, e.g. "Lettuce StatefulRedisConnection".
     *
     * @return a short description
     */
    String describe();
}
