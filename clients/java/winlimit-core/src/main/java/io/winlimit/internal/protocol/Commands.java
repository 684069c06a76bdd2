package io.winlimit.internal.protocol;

import io.winlimit.model.CallOptions;
import io.winlimit.model.Command;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.internal.text.Json;
import io.winlimit.model.Policy;
import io.winlimit.model.SlideOptions;
import io.winlimit.model.Window;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The WINLIMIT command lines and the policies they check, as clients/spec/commands.json gives
 * them: the same arguments, the same policy names and windows as the Python and Node clients.
 * Arguments are checked here, before anything is sent; ranges are the server's to judge, in
 * its own words.
 */
public final class Commands {
    private Commands() {}

    /**
     * A policy name usable in the header fields (a Structured Field String: printable ASCII).
     *
     * @param name the name
     * @return {@code name}
     * @throws IllegalArgumentException if it is null or has a character outside printable ASCII
     */
    public static String checkName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("a policy name must be a string, not null");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException("a policy name must be printable ASCII, not " + Json.quote(name));
            }
        }
        return name;
    }

    /**
     * How a policy of several windows is named after its window: whole seconds as "60s",
     * anything else in ms ("1500ms").
     *
     * @param windowMs the window, in ms
     * @return the label
     */
    public static String windowLabel(long windowMs) {
        return windowMs % 1000 == 0 ? (windowMs / 1000) + "s" : windowMs + "ms";
    }

    /**
     * WINLIMIT.SLIDE[_RO] key window_ms limit [window_ms limit ...] [COST n | REFUND n] [BLOCK ms] [BUCKET ms].
     *
     * @param defaults the limiter's name and BLOCK
     * @param key the limit's key
     * @param windows the windows, each with its limit
     * @param options the call's options
     * @return the call, its policies named
     * @throws IllegalArgumentException for a null key or options, or a bad name
     */
    public static Call slide(Defaults defaults, String key, List<Window> windows, SlideOptions options) {
        checkOptions(options);
        if (windows == null || windows.isEmpty()) {
            throw new IllegalArgumentException("slide needs at least one window");
        }
        String name = nameOf(options, defaults);
        List<byte[]> args = start(Command.SLIDE, key, options.peek());
        List<Policy> policies = new ArrayList<>();
        for (Window w : windows) {
            if (w == null) {
                throw new IllegalArgumentException("a window must not be null");
            }
            args.add(Words.number(w.windowMs()));
            args.add(Words.number(w.limit()));
            String policyName = windows.size() == 1 ? name : name + "-" + windowLabel(w.windowMs());
            policies.add(new Policy(policyName, w.limit(), w.windowMs()));
        }
        unitArgs(args, options, defaults);
        options.bucketMs().ifPresent(ms -> add(args, "BUCKET", ms));
        return call(args, key, options, policies);
    }

    /**
     * WINLIMIT.FIXED[_RO] key window_ms limit [COST n | REFUND n] [BLOCK ms] [ALIGN].
     *
     * @param defaults the limiter's name and BLOCK
     * @param key the limit's key
     * @param windowMs the window, in ms
     * @param limit the units the window holds
     * @param options the call's options
     * @return the call, its policies named
     * @throws IllegalArgumentException for a null key or options, or a bad name
     */
    public static Call fixed(Defaults defaults, String key, long windowMs, long limit, FixedOptions options) {
        checkOptions(options);
        List<byte[]> args = start(Command.FIXED, key, options.peek());
        args.add(Words.number(windowMs));
        args.add(Words.number(limit));
        unitArgs(args, options, defaults);
        if (options.align()) {
            args.add(Words.of("ALIGN"));
        }
        return call(args, key, options, List.of(new Policy(nameOf(options, defaults), limit, windowMs)));
    }

    /**
     * WINLIMIT.GCRA[_RO] key period_ms limit [BURST n] [COST n | REFUND n] [BLOCK ms].
     *
     * @param defaults the limiter's name and BLOCK
     * @param key the limit's key
     * @param periodMs the period, in ms
     * @param limit the units per period
     * @param options the call's options
     * @return the call, its policies named
     * @throws IllegalArgumentException for a null key or options, or a bad name
     */
    public static Call gcra(Defaults defaults, String key, long periodMs, long limit, GcraOptions options) {
        checkOptions(options);
        List<byte[]> args = start(Command.GCRA, key, options.peek());
        args.add(Words.number(periodMs));
        args.add(Words.number(limit));
        long capacity = options.burst().orElse(limit);
        options.burst().ifPresent(burst -> add(args, "BURST", burst));
        unitArgs(args, options, defaults);
        // Empty to full takes capacity / limit periods, rounded up, exactly (the product can
        // pass 2^63). A limit <= 0 is refused by the server; the policy is then never read.
        long refillMs = periodMs;
        if (limit > 0) {
            BigInteger lim = BigInteger.valueOf(limit);
            BigInteger refill = BigInteger.valueOf(capacity).multiply(BigInteger.valueOf(periodMs))
                    .add(lim).subtract(BigInteger.ONE).divide(lim);
            refillMs = refill.bitLength() < 64 ? refill.longValue() : Long.MAX_VALUE;
        }
        return call(args, key, options, List.of(new Policy(nameOf(options, defaults), capacity, refillMs)));
    }

    /** What a limiter adds to every call: its name, and the BLOCK of recording calls. */
    public record Defaults(String name, OptionalLong blockMs) {
        /**
         * Checks the name.
         *
         * @param name the policy name of the header fields
         * @param blockMs the BLOCK of recording calls, empty for none
         * @throws IllegalArgumentException for a bad name
         */
        public Defaults {
            checkName(name);
        }
    }

    private static void checkOptions(CallOptions<?> options) {
        if (options == null) {
            throw new IllegalArgumentException("the options must not be null (use the method without them)");
        }
    }

    private static String nameOf(CallOptions<?> options, Defaults defaults) {
        return options.name().map(Commands::checkName).orElse(defaults.name());
    }

    /** The line's first words: the command (its reader for a peek) and the key. Room for the
     * longest line of one window and every option, so that the list never grows. */
    private static List<byte[]> start(Command command, String key, boolean peek) {
        if (key == null) {
            throw new IllegalArgumentException("the key must be a string, not null");
        }
        List<byte[]> args = new ArrayList<>(12);
        args.add(Words.name(command, peek));
        args.add(Words.utf8(key));
        return args;
    }

    /** COST, REFUND and BLOCK, in the server's order. REFUND with COST or BLOCK is sent as
     * given: the server refuses the pair in its own words. The limiter's BLOCK applies to a
     * recording call that gives none (not to a peek, nor a refund). */
    private static void unitArgs(List<byte[]> args, CallOptions<?> options, Defaults defaults) {
        long cost = options.cost().orElse(1);
        if (cost != 1) {
            add(args, "COST", cost);
        }
        options.refund().ifPresent(n -> add(args, "REFUND", n));
        OptionalLong block = options.blockMs();
        if (block.isEmpty() && !options.peek() && options.refund().isEmpty()) {
            block = defaults.blockMs();
        }
        block.ifPresent(ms -> add(args, "BLOCK", ms));
    }

    private static void add(List<byte[]> args, String word, long value) {
        args.add(Words.of(word));
        args.add(Words.number(value));
    }

    private static Call call(List<byte[]> args, String key, CallOptions<?> options, List<Policy> policies) {
        long waitMs = -1;
        if (options.waitMs().isPresent()) {
            waitMs = options.waitMs().getAsLong();
            if (waitMs <= 0) {
                throw new IllegalArgumentException("wait must be positive, not " + waitMs + " ms");
            }
            if (options.peek()) {
                throw new IllegalArgumentException(
                        "peek records nothing, so waiting for it to be accepted makes no sense: drop waitUpTo or peek");
            }
            if (options.refund().isPresent()) {
                throw new IllegalArgumentException(
                        "refund takes nothing, so waiting for it to be accepted makes no sense: drop waitUpTo or refund");
            }
        }
        return new Call(args, key, options.peek(), options.refund().isPresent(), policies, waitMs);
    }
}
