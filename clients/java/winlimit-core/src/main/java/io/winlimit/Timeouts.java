package io.winlimit;

import io.winlimit.model.RedisTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** One daemon timer thread for every limiter's timeouts and waits. */
final class Timeouts {
    static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "winlimit-timer");
        thread.setDaemon(true);
        return thread;
    });

    private Timeouts() {}

    /** {@code sent}'s outcome, or RedisTimeoutException after {@code ms}, which also cancels
     * {@code sent}: a command still queued in the client is then never written. */
    static <T> CompletableFuture<T> within(CompletableFuture<T> sent, long ms) {
        if (sent.isDone()) {
            return sent;
        }
        CompletableFuture<T> out = new CompletableFuture<>();
        ScheduledFuture<?> timer = TIMER.schedule(() -> {
            if (out.completeExceptionally(new RedisTimeoutException("no answer from Redis within " + ms + " ms", null))) {
                sent.cancel(false);
            }
        }, ms, TimeUnit.MILLISECONDS);
        sent.whenComplete((reply, error) -> {
            timer.cancel(false);
            if (error == null) {
                out.complete(reply);
            } else {
                out.completeExceptionally(io.winlimit.internal.library.Backends.cause(error));
            }
        });
        return out;
    }

    /** A future that completes after {@code ms}. */
    static CompletableFuture<Void> sleep(long ms) {
        CompletableFuture<Void> out = new CompletableFuture<>();
        TIMER.schedule(() -> out.complete(null), ms, TimeUnit.MILLISECONDS);
        return out;
    }
}
