package io.winlimit.spring.boot.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.winlimit.support.Readiness;

/**
 * A real redis-server from the project's .cache/ with the module loaded, on a free loopback
 * port, stopped by its PID. The server is WINLIMIT_SERVER_BIN (default .cache/redis-7.0), the
 * module WINLIMIT_MODULE (default the released .so).
 */
public final class RedisServer implements AutoCloseable {
    private final Process process;
    private final int port;

    private RedisServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** A server with the module, answering PING. */
    public static RedisServer start() {
        return start(true);
    }

    /** A server, with the module or without it (a managed Redis: the library then serves). */
    public static RedisServer start(boolean module) {
        Path root = Repo.root();
        String bin = env("WINLIMIT_SERVER_BIN", root.resolve(".cache/redis-7.0/bin/server").toString());
        List<String> command = new ArrayList<>(List.of(bin, "--port", "0", "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--protected-mode", "no"));
        if (module) {
            Path so = Path.of(env("WINLIMIT_MODULE", root.resolve("target/x86_64-unknown-linux-gnu/dist/libwinlimit.so").toString()));
            if (!Files.isRegularFile(so)) {
                throw new IllegalStateException("no winlimit module at " + so + ": build it (make release-so) or set WINLIMIT_MODULE");
            }
            command.addAll(List.of("--loadmodule", so.toString()));
        }
        for (int attempt = 0; ; attempt++) {
            int port = freePort();
            command.set(2, Integer.toString(port));
            try {
                Process process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                RedisServer server = new RedisServer(process, port);
                if (server.awaitPing(Readiness.DEADLINE)) {
                    return server;
                }
                server.close();
            } catch (IOException e) {
                throw new IllegalStateException("cannot start " + bin, e);
            }
            if (attempt == 4) {
                throw new IllegalStateException("redis-server did not answer on a free port: " + command);
            }
        }
    }

    /** Flushes everything, as a fresh server would hold. */
    public void flush() {
        command("FLUSHALL");
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** Sends one command and returns the reply's first line (enough for the tests' commands). */
    public String command(String... args) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            StringBuilder line = new StringBuilder("*" + args.length + "\r\n");
            for (String arg : args) {
                line.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg).append("\r\n");
            }
            out.write(line.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8)).readLine();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private boolean awaitPing(Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                if ("+PONG".equals(command("PING"))) {
                    return true;
                }
            } catch (IllegalStateException e) {
                // not listening yet
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** Stops the server (SIGTERM to its PID, then SIGKILL) and waits for it to exit. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? fallback : value;
    }
}
