package io.winlimit.memory;

import io.winlimit.LimiterConfig;
import io.winlimit.internal.RejectionCache;
import io.winlimit.internal.text.Args;
import io.winlimit.model.Backend;
import io.winlimit.model.Command;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.model.Policy;
import io.winlimit.model.RedisServerException;
import io.winlimit.model.SlideOptions;
import io.winlimit.model.Window;
import io.winlimit.internal.protocol.Call;
import io.winlimit.internal.protocol.Commands;
import io.winlimit.internal.protocol.Replies;
import io.winlimit.internal.protocol.Words;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * An in-process limiter: the same methods and decisions as {@link io.winlimit.Limiter}, kept
 * in this process's memory on its clock, with no Redis; a middleware's fallback while Redis
 * fails. A port of the Python and Node memory limiters.
 *
 * <p>It counts per process: with N processes, each allows the whole limit. Its decisions are
 * the module's for the same calls at the same times (clients/spec/decisions.json, generated
 * from the module's core, is run on it); {@code decision.backend()} is MEMORY. Memory is
 * bounded: a key is dropped once nothing in it counts any more, and at most {@code maxKeys}
 * keys are kept, the least recently used dropped first. Thread-safe.
 */
public final class MemoryLimiter implements io.winlimit.Fallback {
    /** How many keys are kept by default. */
    public static final int DEFAULT_MAX_KEYS = 100_000;

    private final Commands.Defaults defaults;
    private final int maxKeys;
    private final LongSupplier clock;
    private final long maxLimit;
    private final RejectionCache cache;
    // Keys in use order, least recently used first.
    private final LinkedHashMap<String, State> keys = new LinkedHashMap<>(16, 0.75f, false);
    private int callsSinceSweep;

    /** A memory limiter with the defaults: the wall clock, 100,000 keys. */
    public MemoryLimiter() {
        this(LimiterConfig.defaults(), DEFAULT_MAX_KEYS, System::currentTimeMillis, Parse.DEFAULT_MAX_LIMIT);
    }

    /**
     * @param config its name, block and rejection cache (the backend and timeout do not apply)
     * @param maxKeys at most this many keys are kept
     * @param clock the time in ms since the epoch (tests pass their own)
     * @param maxLimit the exact log's largest limit, as the module's winlimit.max-limit
     */
    public MemoryLimiter(LimiterConfig config, int maxKeys, LongSupplier clock, long maxLimit) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be a positive integer, not " + maxKeys);
        }
        this.defaults = new Commands.Defaults(config.name(), config.blockMs());
        this.maxKeys = maxKeys;
        this.clock = clock;
        this.maxLimit = maxLimit;
        this.cache = config.cacheRejections() ? new RejectionCache(config.cacheSize()) : null;
    }

    /**
     * How many keys are held now.
     *
     * @return the number of keys, at most maxKeys
     */
    public synchronized int size() {
        return keys.size();
    }

    /**
     * A sliding window, as {@link io.winlimit.Limiter#slide(String, Duration, long)}.
     *
     * @param key the limit's key
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @return the decision, backend MEMORY
     * @throws io.winlimit.model.RedisServerException for what the module would refuse, with its text
     */
    public Decision slide(String key, Duration window, long limit) {
        return slide(key, List.of(Window.of(window, limit)), SlideOptions.defaults());
    }

    /**
     * A sliding window with options (units, BUCKET, BLOCK, PEEK, NAME).
     *
     * @param key the limit's key
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @param options the call's options
     * @return the decision, backend MEMORY
     * @throws io.winlimit.model.RedisServerException for what the module would refuse, with its text
     */
    public Decision slide(String key, Duration window, long limit, SlideOptions options) {
        return slide(key, List.of(Window.of(window, limit)), options);
    }

    /**
     * Several windows at once: accepted iff every window has room, then recorded once.
     *
     * @param key the limit's key
     * @param windows the windows, each with its limit (at least one)
     * @return the decision, backend MEMORY
     * @throws io.winlimit.model.RedisServerException for what the module would refuse, with its text
     */
    public Decision slide(String key, List<Window> windows) {
        return slide(key, windows, SlideOptions.defaults());
    }

    /**
     * Several windows at once, with options.
     *
     * @param key the limit's key
     * @param windows the windows, each with its limit (at least one)
     * @param options the call's options
     * @return the decision, backend MEMORY
     * @throws io.winlimit.model.RedisServerException for what the module would refuse, with its text
     */
    public Decision slide(String key, List<Window> windows, SlideOptions options) {
        return decide(Commands.slide(defaults, key, windows, options));
    }

    /**
     * A fixed-window counter, as {@link io.winlimit.Limiter#fixed(String, Duration, long)}.
     *
     * @param key the limit's key
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @return the decision, backend MEMORY
     * @throws io.winlimit.model.RedisServerException for what the module would refuse, with its text
     */
    public Decision fixed(String key, Duration window, long limit) {
        return fixed(key, window, limit, FixedOptions.defaults());
    }

    /**
     * A fixed-window counter with options (units, ALIGN, BLOCK, PEEK, NAME).
     *
     * @param key the limit's key
     * @param window the window's length, in whole milliseconds
     * @param limit the units the window holds
     * @param options the call's options
     * @return the decision, backend MEMORY
     * @throws io.winlimit.model.RedisServerException for what the module would refuse, with its text
     */
    public Decision fixed(String key, Duration window, long limit, FixedOptions options) {
        return decide(Commands.fixed(defaults, key, Args.millis("window", window), limit, options));
    }

    /**
     * A token bucket (GCRA), as {@link io.winlimit.Limiter#gcra(String, Duration, long)}.
     *
     * @param key the limit's key
     * @param period the period the limit refills over, in whole milliseconds
     * @param limit the units per period
     * @return the decision, backend MEMORY
     * @throws io.winlimit.model.RedisServerException for what the module would refuse, with its text
     */
    public Decision gcra(String key, Duration period, long limit) {
        return gcra(key, period, limit, GcraOptions.defaults());
    }

    /**
     * A token bucket (GCRA) with options (units, BURST, BLOCK, PEEK, NAME).
     *
     * @param key the limit's key
     * @param period the period the limit refills over, in whole milliseconds
     * @param limit the units per period
     * @param options the call's options
     * @return the decision, backend MEMORY
     * @throws io.winlimit.model.RedisServerException for what the module would refuse, with its text
     */
    public Decision gcra(String key, Duration period, long limit, GcraOptions options) {
        return decide(Commands.gcra(defaults, key, Args.millis("period", period), limit, options));
    }

    /**
     * Forgets the key and its cached rejections; true if a key was held.
     *
     * @param key the limit's key
     * @return true if a key was held
     */
    public boolean reset(String key) {
        boolean removed;
        synchronized (this) {
            removed = keys.remove(key) != null;
        }
        if (cache != null) {
            cache.forget(key);
        }
        return removed;
    }

    /** Answers a command line the limiter would have sent to Redis, as this limiter's own
     * methods answer theirs (its rejection cache included). */
    @Override
    public Decision decide(List<String> commandLine, List<Policy> policies) {
        String command = commandLine.isEmpty() ? "" : commandLine.get(0).toUpperCase(Locale.ROOT);
        String key = commandLine.size() > 1 ? commandLine.get(1) : "";
        boolean refund = commandLine.stream().skip(2).anyMatch("REFUND"::equalsIgnoreCase);
        List<byte[]> bytes = new ArrayList<>(commandLine.size());
        for (String word : commandLine) {
            bytes.add(Words.utf8(word));
        }
        return decide(new Call(bytes, key, command.endsWith("_RO"), refund, policies, -1));
    }

    /** Answers a call built by {@link Commands}, as the limiter would; a wait is not slept here
     * (the memory limiter answers at once), so a waiting call gets its first decision. */
    private Decision decide(Call call) {
        Decision cached = cache == null ? null : cache.answer(call);
        if (cached != null) {
            return cached;
        }
        long[] reply = executeCommand(call.args());
        List<Object> fields = new ArrayList<>(5);
        for (long f : reply) {
            fields.add(f);
        }
        Decision decision = Replies.decision(fields, call.policies(), Backend.MEMORY);
        if (cache != null) {
            cache.remember(call, decision);
        }
        return decision;
    }

    /**
     * Answers one WINLIMIT command line ({@code ["WINLIMIT.SLIDE", key, "1000", "3"]}) at the
     * clock's time, as the module would: the five integers, or a RedisServerException with the
     * module's text. Every method goes through here.
     *
     * @param line the command and its arguments, integers as decimal text
     * @return allowed (1 or 0), limit, remaining, retry-after ms, reset-after ms
     */
    public synchronized long[] executeCommand(List<String> line) {
        String command = line.isEmpty() ? "" : line.get(0);
        String key = line.size() > 1 ? line.get(1) : "";
        List<String> words = line.size() > 2 ? line.subList(2, line.size()) : List.of();
        String upper = command.toUpperCase(Locale.ROOT);
        boolean peek = upper.endsWith("_RO");
        String base = peek ? upper.substring(0, upper.length() - 3) : upper;
        long now = clock.getAsLong();
        Command spec = command(base);
        State state = state(key, now, spec, words);
        long[] reply = state.decide(now, words, peek, maxLimit, spec.foreignShape());
        if (state.expiresAt != null && !keys.containsKey(key)) {
            keys.put(key, state);
        }
        bound(now);
        return reply;
    }

    /** The key's live state (moved to most recently used), or a new empty one of the command's
     * kind, kept only once it records something. */
    private State state(String key, long now, Command command, List<String> words) {
        State state = keys.get(key);
        if (state != null && state.expiresAt != null && state.expiresAt <= now) {
            keys.remove(key);
            state = null;
        }
        State fresh = newState(command, words);
        if (state == null) {
            return fresh;
        }
        if (!state.kind().equals(fresh.kind())) {
            throw new RedisServerException("WRONGTYPE Operation against a key holding the wrong kind of value", null);
        }
        keys.remove(key);
        keys.put(key, state);
        return state;
    }

    /** At most maxKeys keys, least recently used out first; and once per as many calls as keys
     * held, a sweep drops every key whose windows have passed (amortised O(1) per call). */
    private void bound(long now) {
        Iterator<String> oldest = keys.keySet().iterator();
        while (keys.size() > maxKeys && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
        callsSinceSweep++;
        if (callsSinceSweep < keys.size()) {
            return;
        }
        callsSinceSweep = 0;
        keys.values().removeIf(s -> s.expiresAt != null && s.expiresAt <= now);
    }

    /** An empty state of the command's kind (Command.state), never of its name. */
    private static State newState(Command command, List<String> words) {
        return switch (command.state()) {
            case LOG -> {
                Long bucket = bucketOption(words);
                yield bucket == null ? new LogState() : new BucketsState(bucket);
            }
            case COUNTER -> new CounterState();
            case TAT -> new TatState();
        };
    }

    /** The BUCKET a log command's words give, if an integer (the parser judges the rest). */
    private static Long bucketOption(List<String> words) {
        for (int i = 0; i + 1 < words.size(); i++) {
            if (words.get(i).toUpperCase(Locale.ROOT).equals("BUCKET")) {
                return Parse.parseInt64(words.get(i + 1));
            }
        }
        return null;
    }

    private static Command command(String base) {
        return Command.ofWriter(base).orElseThrow(
                () -> new RedisServerException("ERR unknown command '" + base + "' for the memory limiter", null));
    }
}
