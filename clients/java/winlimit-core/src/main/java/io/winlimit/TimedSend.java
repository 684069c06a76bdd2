package io.winlimit;

import io.winlimit.internal.library.Backends;
import io.winlimit.model.RedisTimeoutException;
import io.winlimit.model.RedisUnavailableException;
import io.winlimit.model.WinlimitException;
import io.winlimit.spi.RedisCommand;
import io.winlimit.spi.RedisExecutor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * One command sent within the limiter's timeout, its outcome handed to {@link #settled} once:
 * the reply; or the error, as a WinlimitException; or RedisTimeoutException when no answer came
 * in time, which also cancels the command (a command still queued in the client is then never
 * written). One object is the future, the timer's task and the reply's handler, because this
 * runs on every call: a second future, a runnable and a stage to relay between them were most
 * of what a call allocated beyond the client's own (issue 45, item 8).
 *
 * @param <T> what the future completes with
 */
abstract class TimedSend<T> extends CompletableFuture<T> implements Callable<Void>, BiConsumer<Object, Throwable> {
    private static final VarHandle SETTLED;

    static {
        try {
            SETTLED = MethodHandles.lookup().findVarHandle(TimedSend.class, "settled", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Set once, by whichever of the reply and the timer comes first.
    @SuppressWarnings("unused")
    private volatile boolean settled;
    private CompletableFuture<Object> sent;
    private Future<?> timer;
    private long timeoutMs;

    /** The command's outcome: {@code error} null for a reply. Runs once. */
    abstract void settled(Object reply, Throwable error);

    /**
     * Sends {@code command}; its outcome goes to {@link #settled}.
     *
     * @return this
     */
    final TimedSend<T> start(RedisExecutor executor, RedisCommand command, long timeoutMs) {
        try {
            sent = executor.send(command);
        } catch (RuntimeException e) {
            settle(null, e);
            return this;
        }
        // A blocking client's future is done already: no timer for it.
        if (!sent.isDone()) {
            this.timeoutMs = timeoutMs;
            timer = Timeouts.TIMER.schedule(this, timeoutMs, TimeUnit.MILLISECONDS);
        }
        sent.whenComplete(this);
        return this;
    }

    /** The timer's task: no answer within the timeout. */
    @Override
    public final Void call() {
        if (SETTLED.compareAndSet(this, false, true)) {
            deliver(null, new RedisTimeoutException("no answer from Redis within " + timeoutMs + " ms", null));
            sent.cancel(false);
        }
        return null;
    }

    /** The command's reply or error. */
    @Override
    public final void accept(Object reply, Throwable error) {
        if (timer != null) {
            timer.cancel(false);
        }
        settle(reply, error);
    }

    private void settle(Object reply, Throwable error) {
        if (SETTLED.compareAndSet(this, false, true)) {
            deliver(reply, error == null ? null : unavailable(Backends.cause(error)));
        }
    }

    /** Hands the outcome to {@link #settled}; what that throws completes this future, since
     * neither the client's callback nor the timer would report it and, settled already, the
     * timer could no longer end the call. */
    private void deliver(Object reply, Throwable error) {
        try {
            settled(reply, error);
        } catch (RuntimeException | Error e) {
            completeExceptionally(e);
        }
    }

    /** An error as the limiter reports it: a WinlimitException as it is, anything else as
     * RedisUnavailableException. */
    static WinlimitException unavailable(Throwable error) {
        if (error instanceof WinlimitException w) {
            return w;
        }
        if (error instanceof CancellationException) {
            return new RedisUnavailableException("the Redis client cancelled the command", error);
        }
        return new RedisUnavailableException(String.valueOf(error.getMessage()), error);
    }

    /** A command whose future completes with its reply as it is (detection, loading, DEL). */
    static final class Relay extends TimedSend<Object> {
        @Override
        void settled(Object reply, Throwable error) {
            if (error == null) {
                complete(reply);
            } else {
                completeExceptionally(error);
            }
        }
    }
}
