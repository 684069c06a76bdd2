package io.winlimit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** One daemon timer thread for every limiter's timeouts ({@link TimedSend}) and waits. */
final class Timeouts {
    static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "winlimit-timer");
        thread.setDaemon(true);
        return thread;
    });

    private Timeouts() {}

    /** A future that completes after {@code ms}. */
    static CompletableFuture<Void> sleep(long ms) {
        CompletableFuture<Void> out = new CompletableFuture<>();
        TIMER.schedule(() -> out.complete(null), ms, TimeUnit.MILLISECONDS);
        return out;
    }
}
