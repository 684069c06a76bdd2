package io.winlimit.springdata;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The threads that take a Spring factory's connection, which blocks, off the caller's thread:
 * daemons, made when needed and gone after a minute idle, since a connection is taken once. */
final class Connecting {
    static final ExecutorService THREADS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "winlimit-connect");
                thread.setDaemon(true);
                return thread;
            });

    private Connecting() {}
}
