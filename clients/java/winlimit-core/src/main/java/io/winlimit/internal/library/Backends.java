package io.winlimit.internal.library;

import io.winlimit.model.Backend;
import io.winlimit.model.BackendChoice;
import io.winlimit.model.MissingPermissionException;
import io.winlimit.model.ModuleNotLoadedException;
import io.winlimit.model.RedisServerException;
import io.winlimit.internal.protocol.Call;
import io.winlimit.internal.protocol.Words;
import io.winlimit.spi.RedisCommand;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

/**
 * Which edition of winlimit answers a call: the module (WINLIMIT.*), the Functions library
 * (FCALL) or the script (EVALSHA), chosen per server and per cluster node, with the library
 * loaded where it is missing or older (never where it is newer). The same steps as the Python
 * and Node clients.
 *
 * <p>Nothing here replays a call whose reply did not arrive: a call is sent again only after
 * the server answered it with an error that says it ran nothing (function or script missing,
 * or the module gone).
 */
public final class Backends {

    /** Sends one command; what the limiter gives the backends. */
    public interface Sender {
        /**
         * Sends the command, as {@link io.winlimit.spi.RedisExecutor#send} does.
         *
         * @param command the command line
         * @return completes with the normalised reply, or exceptionally with a WinlimitException
         */
        CompletableFuture<Object> send(RedisCommand command);

        /**
         * The node serving {@code key}, as {@link io.winlimit.spi.RedisExecutor#nodeOf} names it.
         *
         * @param key the limiter's key
         * @return the node's name, "" for a single server
         */
        String nodeOf(byte[] key);
    }

    /** A reply and the edition that gave it. */
    public record Answer(Object reply, Backend backend) {}

    /** What is known of one server (one cluster node). */
    private static final class Node {
        volatile Backend backend;
        volatile boolean libraryChecked;
    }

    private final BackendChoice choice;
    private final Sender sender;
    private final Library library;
    private final Map<String, Node> nodes = new ConcurrentHashMap<>();

    /**
     * Backends detected per node as {@code choice} says, the library read from this jar.
     *
     * @param choice the edition to use, or AUTO
     * @param sender what sends the commands
     */
    public Backends(BackendChoice choice, Sender sender) {
        this.choice = choice;
        this.sender = sender;
        this.library = Library.get();
    }

    /**
     * The call answered by the backend of the node serving its key.
     *
     * @param call the call
     * @return completes with the reply and the edition that gave it, or exceptionally with a
     *     WinlimitException (ModuleNotLoadedException where the module is missing but required)
     */
    public CompletableFuture<Answer> answer(Call call) {
        byte[] key = call.keyBytes();
        Node node = node(key);
        Backend known = node.backend;
        CompletableFuture<Backend> backend = known != null ? CompletableFuture.completedFuture(known) : detect(node, key);
        return backend.thenCompose(b -> byBackend(call, key, node, b));
    }

    /**
     * The module's command line for the call when the node serving its key is known to serve
     * the module, the common case after a node's first call: the limiter then sends it itself,
     * with no stage between (see {@link #afterModuleFailure}).
     *
     * @param call the call
     * @return the call's line as the module takes it, or null when the node's backend is another
     *     or not known yet
     */
    public RedisCommand direct(Call call) {
        return node(call.keyBytes()).backend == Backend.MODULE ? moduleCommand(call) : null;
    }

    /**
     * What follows a failed module command: where the module was unloaded since the node was
     * detected (AUTO), the call answered by the backend detected again; else the error.
     *
     * @param call the call whose module command failed
     * @param e the failure
     * @return completes as {@link #answer} does; exceptionally with the error, an unknown command
     *     as ModuleNotLoadedException
     */
    public CompletableFuture<Answer> afterModuleFailure(Call call, Throwable e) {
        Throwable error = cause(e);
        if (choice != BackendChoice.AUTO || !is(error, "unknown command")) {
            return CompletableFuture.failedFuture(translate(error));
        }
        byte[] key = call.keyBytes();
        Node node = node(key);
        return detect(node, key).thenCompose(b -> b == Backend.MODULE
                ? CompletableFuture.failedFuture(translate(error))
                : byBackend(call, key, node, b));
    }

    /** The node serving {@code key}, made on its first call. (Looked up before computeIfAbsent,
     * whose lambda would be an object per call.) */
    private Node node(byte[] key) {
        String name = sender.nodeOf(key);
        Node node = nodes.get(name);
        return node != null ? node : nodes.computeIfAbsent(name, n -> newNode());
    }

    /**
     * What the limiter knows of the node serving {@code key}: its backend, or null before its
     * first call.
     *
     * @param key the limit's key
     * @return the backend, or null
     */
    public Backend backendOf(String key) {
        Node node = nodes.get(sender.nodeOf(Words.utf8(key)));
        return node == null ? null : node.backend;
    }

    private Node newNode() {
        Node node = new Node();
        switch (choice) {
            case MODULE -> node.backend = Backend.MODULE;
            case FUNCTIONS -> node.backend = Backend.FUNCTIONS;
            case SCRIPTS -> node.backend = Backend.SCRIPTS;
            case AUTO -> { }
        }
        return node;
    }

    private CompletableFuture<Answer> byBackend(Call call, byte[] key, Node node, Backend backend) {
        return switch (backend) {
            case MODULE -> module(call);
            case FUNCTIONS -> (node.libraryChecked ? CompletableFuture.<Void>completedFuture(null) : ensureLibrary(node, key))
                    .thenCompose(v -> node.backend == Backend.FUNCTIONS ? fcall(call, key, node) : evalsha(call, key));
            default -> evalsha(call, key);
        };
    }

    private CompletableFuture<Answer> module(Call call) {
        return sender.send(moduleCommand(call)).thenApply(reply -> new Answer(reply, Backend.MODULE))
                .exceptionallyCompose(e -> afterModuleFailure(call, e));
    }

    /** The call's line as it is: the module's command. */
    private static RedisCommand moduleCommand(Call call) {
        return new RedisCommand(call.bytes(), call.keyBytes(), 1);
    }

    private CompletableFuture<Answer> fcall(Call call, byte[] key, Node node) {
        List<byte[]> args = new ArrayList<>(call.bytes().size() + 2);
        args.add(Words.of(call.peek() ? "FCALL_RO" : "FCALL"));
        args.add(Words.of(call.functionName()));
        args.add(Words.of("1"));
        args.addAll(call.bytes().subList(1, call.bytes().size()));
        RedisCommand command = new RedisCommand(args, key, 3);
        return sender.send(command).thenApply(reply -> new Answer(reply, Backend.FUNCTIONS)).exceptionallyCompose(e -> {
            Throwable error = cause(e);
            if (!is(error, "function not found")) {
                return CompletableFuture.failedFuture(error);
            }
            // FUNCTION FLUSH, or an older library without this function: load ours, then again.
            return ensureLibrary(node, key).thenCompose(v -> node.backend != Backend.FUNCTIONS
                    ? evalsha(call, key)
                    : sender.send(command).thenApply(reply -> new Answer(reply, Backend.FUNCTIONS)));
        });
    }

    /** Loads the library where it is missing or older; never replaces a newer one. Where the
     * user may not load it, AUTO turns to the scripts. */
    private CompletableFuture<Void> ensureLibrary(Node node, byte[] key) {
        node.libraryChecked = true;
        return loadedVersion(key).thenCompose(version -> {
            if (version != null && Library.atLeast(version, library.version())) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            return load(key, version != null).exceptionallyCompose(e -> {
                Throwable error = cause(e);
                if (error instanceof MissingPermissionException && choice == BackendChoice.AUTO) {
                    node.backend = Backend.SCRIPTS;
                    return CompletableFuture.completedFuture(null);
                }
                return CompletableFuture.failedFuture(error instanceof MissingPermissionException
                        ? permission(error, "+function|load", "the \"functions\" backend loads the library, which")
                        : error);
            });
        });
    }

    private CompletableFuture<Void> load(byte[] key, boolean replace) {
        List<String> args = new ArrayList<>(List.of("FUNCTION", "LOAD"));
        if (replace) {
            args.add("REPLACE");
        }
        args.add(library.text());
        return sender.send(new RedisCommand(encode(args), key, -1)).<Void>thenApply(r -> null).exceptionallyCompose(e -> {
            Throwable error = cause(e);
            if (error instanceof MissingPermissionException || replace || !is(error, "already exists")) {
                return CompletableFuture.failedFuture(error);
            }
            // Loaded by another client since we looked: replaced only if that one is older too.
            return loadedVersion(key).thenCompose(version -> version == null || !Library.atLeast(version, library.version())
                    ? sender.send(new RedisCommand(encode(List.of("FUNCTION", "LOAD", "REPLACE", library.text())), key, -1))
                            .<Void>thenApply(r -> null)
                    : CompletableFuture.<Void>completedFuture(null));
        });
    }

    /** winlimit_version of the library loaded, or null when there is none (or an older library
     * without that function). */
    private CompletableFuture<String> loadedVersion(byte[] key) {
        RedisCommand command = new RedisCommand(encode(List.of("FCALL_RO", "winlimit_version", "0")), key, -1);
        return sender.send(command).thenApply(Backends::text).exceptionallyCompose(e -> {
            Throwable error = cause(e);
            return is(error, "function not found") ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(error);
        });
    }

    private CompletableFuture<Answer> evalsha(Call call, byte[] key) {
        List<byte[]> args = new ArrayList<>(call.bytes().size() + 3);
        args.add(Words.of("EVALSHA"));
        args.add(Words.of(library.sha()));
        args.add(Words.of("1"));
        args.add(key);
        args.add(Words.of(call.functionName()));
        args.addAll(call.bytes().subList(2, call.bytes().size()));
        RedisCommand command = new RedisCommand(args, key, 3);
        return sender.send(command).thenApply(reply -> new Answer(reply, Backend.SCRIPTS)).exceptionallyCompose(e -> {
            Throwable error = cause(e);
            if (!(error instanceof RedisServerException) || !error.getMessage().startsWith("NOSCRIPT")) {
                return CompletableFuture.failedFuture(error);
            }
            RedisCommand load = new RedisCommand(encode(List.of("SCRIPT", "LOAD", library.script())), key, -1);
            return sender.send(load).exceptionallyCompose(loadError -> {
                Throwable refused = cause(loadError);
                return CompletableFuture.failedFuture(refused instanceof MissingPermissionException
                        ? permission(refused, "+script|load", "the \"scripts\" backend loads its script, which")
                        : refused);
            }).thenCompose(sha -> sender.send(command)).thenApply(reply -> new Answer(reply, Backend.SCRIPTS));
        });
    }

    /** MODULE where COMMAND INFO knows WINLIMIT.SLIDE, else FUNCTIONS where it knows FCALL, else
     * SCRIPTS. (Not MODULE LIST: managed services refuse it.) */
    private CompletableFuture<Backend> detect(Node node, byte[] key) {
        RedisCommand command = new RedisCommand(encode(List.of("COMMAND", "INFO", "WINLIMIT.SLIDE", "FCALL")), key, -1);
        return sender.send(command).exceptionallyCompose(e -> {
            Throwable error = cause(e);
            return CompletableFuture.failedFuture(error instanceof MissingPermissionException
                    ? permission(error, "+command|info", "backend=\"auto\" asks COMMAND INFO, which")
                    : error);
        }).thenApply(reply -> {
            List<?> infos = reply instanceof List<?> list && list.size() == 2 ? list : List.of();
            Backend backend = known(infos, 0) ? Backend.MODULE : known(infos, 1) ? Backend.FUNCTIONS : Backend.SCRIPTS;
            node.backend = backend;
            return backend;
        });
    }

    private static boolean known(List<?> infos, int i) {
        return infos.size() > i && infos.get(i) instanceof List<?> info && !info.isEmpty();
    }

    /**
     * An unknown-command reply as ModuleNotLoadedException, naming the fix; anything else as is.
     *
     * @param error the call's failure
     * @return the error to report
     */
    public static Throwable translate(Throwable error) {
        if (error instanceof RedisServerException && !(error instanceof ModuleNotLoadedException) && is(error, "unknown command")) {
            return new ModuleNotLoadedException(error.getMessage(), error);
        }
        return error;
    }

    private static MissingPermissionException permission(Throwable error, String rule, String what) {
        return new MissingPermissionException(error.getMessage() + " -- " + what + " needs the ACL rule " + rule
                + " for this user (see the client README, \"Backends\")", error);
    }

    private static boolean is(Throwable error, String text) {
        return error instanceof RedisServerException && error.getMessage() != null
                && error.getMessage().toLowerCase(Locale.ROOT).contains(text);
    }

    /**
     * The error a future failed with, unwrapped.
     *
     * @param e the future's error (a CompletionException or ExecutionException wraps it)
     * @return the first cause that is neither
     */
    public static Throwable cause(Throwable e) {
        Throwable out = e;
        while ((out instanceof CompletionException || out instanceof ExecutionException) && out.getCause() != null) {
            out = out.getCause();
        }
        return out;
    }

    private static String text(Object reply) {
        if (reply instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        return reply == null ? null : reply.toString();
    }

    /**
     * Each argument's UTF-8 bytes.
     *
     * @param args the arguments
     * @return their bytes, in order
     */
    public static List<byte[]> encode(List<String> args) {
        List<byte[]> out = new ArrayList<>(args.size());
        for (String arg : args) {
            out.add(Words.of(arg));
        }
        return out;
    }
}
