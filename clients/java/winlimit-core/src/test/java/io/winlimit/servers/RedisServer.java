package io.winlimit.servers;

import io.winlimit.support.Readiness;
import io.winlimit.support.Repo;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A real server from the repository's .cache/&lt;name&gt;/bin/server on a free loopback port, in a
 * directory of its own, stopped by PID (SIGTERM, then SIGKILL), never by name. With the module
 * (WINLIMIT_MODULE, else the released .so) or without it.
 */
public final class RedisServer implements AutoCloseable {
    private static final Set<RedisServer> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(s -> s.process.destroyForcibly())));
    }

    public final String name;
    public final boolean module;
    private final List<String> extraArgs;
    private final Path dir;
    private Process process;
    private int port;

    public RedisServer(String name, boolean module, String... extraArgs) throws IOException {
        this.name = name;
        this.module = module;
        this.extraArgs = List.of(extraArgs);
        this.dir = Files.createTempDirectory("winlimit-java-" + name + "-");
        start(freePort());
    }

    public static Path bin(String name, String tool) {
        Path path = Repo.path(".cache/" + name + "/bin/" + tool);
        if (!Files.isExecutable(path)) {
            throw new IllegalStateException(path + " is missing: the servers are built by scripts/fetch-servers.sh "
                    + "(make test does it), or link .cache to a tree that has them");
        }
        return path;
    }

    public static String modulePath() {
        String configured = System.getenv("WINLIMIT_MODULE");
        Path path = configured != null && !configured.isEmpty()
                ? Path.of(configured) : Repo.path("target/x86_64-unknown-linux-gnu/dist/libwinlimit.so");
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException("winlimit module not found at " + path + ": build it with `make build` or set "
                    + "WINLIMIT_MODULE to the .so");
        }
        return path.toAbsolutePath().toString();
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Starts the server (again) on {@code port}, and waits until it answers as this process. */
    public void start(int port) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(bin(name, "server").toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        if (module) {
            cmd.addAll(List.of("--loadmodule", modulePath()));
        }
        cmd.addAll(extraArgs);
        process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
        RUNNING.add(this);
        this.port = port;
        long deadline = System.nanoTime() + Readiness.DEADLINE.toNanos();
        while (true) {
            if (!process.isAlive()) {
                RUNNING.remove(this);
                throw new IOException(name + " exited at start-up: " + Files.readString(dir.resolve("server.log")));
            }
            try {
                Object info = Resp.once(port, "INFO", "server");
                if (info instanceof String text && text.contains("process_id:" + process.pid() + "\r\n")) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                stop();
                throw new IOException(name + " did not answer within " + Readiness.DEADLINE.toSeconds() + " s");
            }
            sleep(10);
        }
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    public Object call(String... args) throws IOException {
        return Resp.once(port, args);
    }

    /** SIGSTOP: the server holds every connection and answers nothing until {@link #resume}. */
    public void pause() throws IOException, InterruptedException {
        signal("-STOP");
    }

    public void resume() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill " + signal + " " + process.pid() + " failed");
        }
    }

    /** SIGTERM, then SIGKILL after 10 s; waits for the process to end. */
    public void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        RUNNING.remove(this);
    }

    /** Stops the server and removes its directory (its log and files), as the other trees' kits do. */
    @Override
    public void close() {
        stop();
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
