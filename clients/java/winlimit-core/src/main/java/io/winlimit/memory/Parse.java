package io.winlimit.memory;

import io.winlimit.memory.Requests.Extras;
import io.winlimit.memory.Requests.Pair;
import io.winlimit.model.RedisServerException;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * WINLIMIT command lines read as the module reads them: the same grammar, bounds and error
 * texts (src/core/parse.rs, slide.rs, fixed.rs, gcra.rs), checked by clients/spec/decisions.json.
 * A port of the Python and Node clients' memory parsers. Errors carry the module's text.
 */
final class Parse {
    /** The bound of window_ms, period_ms, the large limits and BURST. */
    static final long MAX = 1_000_000_000_000L;
    static final int MAX_WINDOWS = 8;
    static final int MAX_BUCKETS_PER_WINDOW = 1000;
    /** winlimit.max-limit's default: the exact log's largest limit. */
    static final long DEFAULT_MAX_LIMIT = 10_000;
    private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]*)");
    private static final Pattern LOOKS_INTEGER = Pattern.compile("-?[0-9]+");
    private static final BigInteger I64_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger I64_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private Parse() {}

    /** Refuses an option of {@code refused} (client names: "align") in words the state kind's
     * parser has taken: values are integers, so a word that is the option's keyword is the option. */
    static void refuseOptions(Set<String> refused, List<String> words) {
        for (String option : refused) {
            String keyword = option.toUpperCase(Locale.ROOT);
            for (String word : words) {
                if (word.toUpperCase(Locale.ROOT).equals(keyword)) {
                    throw error("unknown option '" + keyword + "'");
                }
            }
        }
    }

    static RedisServerException error(String text) {
        return new RedisServerException("ERR " + text, null);
    }

    /** An integer as Redis writes it (no +, no leading zeros, no -0) within i64, or null. */
    static Long parseInt64(String word) {
        if (!INTEGER.matcher(word).matches() || word.equals("-0")) {
            return null;
        }
        BigInteger value = new BigInteger(word);
        return value.compareTo(I64_MIN) < 0 || value.compareTo(I64_MAX) > 0 ? null : value.longValue();
    }

    private static boolean looksLikeInteger(String word) {
        return LOOKS_INTEGER.matcher(word).matches();
    }

    private static long ranged(String word, String name, long low, long high) {
        Long value = parseInt64(word);
        if (value == null || value < low || value > high) {
            throw error(name + " must be an integer between " + low + " and " + high);
        }
        return value;
    }

    private static long cost(String word) {
        Long value = parseInt64(word);
        if (value == null || value < 1) {
            throw error("COST must be a positive integer");
        }
        return value;
    }

    /** An argument fit to echo in an error: control characters replaced, at most 64 shown. */
    private static String printable(String word) {
        int[] chars = word.codePoints().toArray();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(64, chars.length); i++) {
            int c = chars[i];
            out.appendCodePoint(c <= 0x1f || (c >= 0x7f && c <= 0x9f) ? '?' : c);
        }
        return chars.length > 64 ? out + "..." : out.toString();
    }

    private static RedisServerException unknown(String word) {
        return error("unknown option '" + printable(word) + "'");
    }

    private static RedisServerException unexpected(String word) {
        if (looksLikeInteger(word)) {
            return error("'" + printable(word) + "' where an option was expected: window_ms limit pairs come before the options");
        }
        return unknown(word);
    }

    private static String upper(String word) {
        return word.toUpperCase(Locale.ROOT);
    }

    /** Keyword options: case-insensitive, any order, each at most once. */
    private static final class Options {
        private final Set<String> seen = new HashSet<>();
        private final Deque<String> words;
        private Long refund;
        private Long blockMs;

        Options(List<String> words) {
            this.words = new ArrayDeque<>(words);
        }

        /** Takes {@code word} (and its value) when it is REFUND or BLOCK. */
        boolean extra(String word) {
            String u = upper(word);
            if (u.equals("REFUND")) {
                Long value = parseInt64(value("REFUND"));
                if (value == null || value < 1) {
                    throw error("REFUND must be a positive integer");
                }
                refund = value;
            } else if (u.equals("BLOCK")) {
                blockMs = ranged(value("BLOCK"), "BLOCK", 1, MAX);
            } else {
                return false;
            }
            return true;
        }

        Extras extras() {
            if (refund != null && seen.contains("COST")) {
                throw error("REFUND cannot be combined with COST");
            }
            if (refund != null && blockMs != null) {
                throw error("REFUND cannot be combined with BLOCK");
            }
            return new Extras(refund, blockMs);
        }

        String next() {
            return words.pollFirst();
        }

        void once(String name) {
            if (!seen.add(name)) {
                throw error("option '" + name + "' given more than once");
            }
        }

        String value(String name) {
            once(name);
            String value = words.pollFirst();
            if (value == null) {
                throw error(name + " needs a value");
            }
            return value;
        }
    }

    private record Windows(List<Pair> pairs, List<String> rest) {}

    /** The window_ms limit pairs at the front, shortest first, and the options after. */
    private static Windows windows(List<String> args, Function<List<String>, Long> boundFor) {
        if (args.size() < 2) {
            throw error("window_ms must be an integer between 1 and " + MAX);
        }
        List<long[]> windows = new ArrayList<>();
        List<String> limits = new ArrayList<>();
        windows.add(new long[] {ranged(args.get(0), "window_ms", 1, MAX)});
        limits.add(args.get(1));
        int i = 2;
        while (i < args.size()) {
            if (windows.size() > MAX_WINDOWS) {
                throw error("at most " + MAX_WINDOWS + " window_ms limit pairs are allowed");
            }
            if (!looksLikeInteger(args.get(i))) {
                break;
            }
            long window = ranged(args.get(i), "window_ms", 1, MAX);
            if (i + 1 >= args.size() || !looksLikeInteger(args.get(i + 1))) {
                throw error("window_ms " + window + " has no limit after it");
            }
            windows.add(new long[] {window});
            limits.add(args.get(i + 1));
            i += 2;
        }
        if (windows.size() > MAX_WINDOWS) {
            throw error("at most " + MAX_WINDOWS + " window_ms limit pairs are allowed");
        }
        List<String> rest = args.subList(i, args.size());
        long bound = boundFor.apply(rest);
        List<Pair> pairs = new ArrayList<>();
        for (int k = 0; k < windows.size(); k++) {
            long window = windows.get(k)[0];
            long limit = ranged(limits.get(k), "limit", 0, bound);
            if (pairs.stream().anyMatch(p -> p.windowMs() == window)) {
                throw error("window_ms " + window + " given more than once");
            }
            pairs.add(new Pair(window, limit));
        }
        pairs.sort(Comparator.comparingLong(Pair::windowMs));
        return new Windows(pairs, rest);
    }

    static Requests.Slide slide(List<String> args, long maxLimit) {
        Windows w = windows(args, o -> o.stream().anyMatch(x -> upper(x).equals("BUCKET")) ? MAX : maxLimit);
        long units = 1;
        Long bucketMs = null;
        Options options = new Options(w.rest());
        for (String word = options.next(); word != null; word = options.next()) {
            if (upper(word).equals("COST")) {
                units = cost(options.value("COST"));
            } else if (options.extra(word)) {
                continue;
            } else if (upper(word).equals("BUCKET")) {
                bucketMs = bucketMs(options.value("BUCKET"), w.pairs());
            } else {
                throw unexpected(word);
            }
        }
        return new Requests.Slide(w.pairs(), units, bucketMs, options.extras());
    }

    private static long bucketMs(String word, List<Pair> pairs) {
        long smallest = pairs.get(0).windowMs();
        long largest = pairs.get(pairs.size() - 1).windowMs();
        Long value = parseInt64(word);
        if (value != null && value >= 1 && value <= smallest && ceilDiv(largest, value) <= MAX_BUCKETS_PER_WINDOW) {
            return value;
        }
        long least = ceilDiv(largest, MAX_BUCKETS_PER_WINDOW);
        if (least > smallest) {
            throw error("BUCKET cannot serve these windows: the largest needs buckets of at least " + least
                    + " ms, the smallest allows at most " + smallest + " ms");
        }
        throw error("BUCKET must be an integer between " + least + " and " + smallest);
    }

    static long ceilDiv(long x, long d) {
        return -Math.floorDiv(-x, d);
    }

    static Requests.Fixed fixed(List<String> args) {
        Windows w = windows(args, o -> MAX);
        if (w.pairs().size() > 1) {
            throw error("WINLIMIT.FIXED takes one window_ms limit pair");
        }
        long units = 1;
        boolean align = false;
        Options options = new Options(w.rest());
        for (String word = options.next(); word != null; word = options.next()) {
            if (upper(word).equals("COST")) {
                units = cost(options.value("COST"));
            } else if (options.extra(word)) {
                continue;
            } else if (upper(word).equals("ALIGN")) {
                options.once("ALIGN");
                align = true;
            } else {
                throw unexpected(word);
            }
        }
        Pair pair = w.pairs().get(0);
        return new Requests.Fixed(pair.windowMs(), pair.limit(), units, align, options.extras());
    }

    static Requests.Gcra gcra(List<String> args) {
        if (args.size() < 2) {
            throw error("period_ms must be an integer between 1 and " + MAX);
        }
        long periodMs = ranged(args.get(0), "period_ms", 1, MAX);
        long limit = ranged(args.get(1), "limit", 1, MAX);
        String burstWord = null;
        long units = 1;
        Options options = new Options(args.subList(2, args.size()));
        for (String word = options.next(); word != null; word = options.next()) {
            if (upper(word).equals("BURST")) {
                burstWord = options.value("BURST");
            } else if (upper(word).equals("COST")) {
                units = cost(options.value("COST"));
            } else if (!options.extra(word)) {
                throw unknown(word);
            }
        }
        Extras extras = options.extras();
        // A full refill (burst * period_ms / limit) must fit in 10^12 ms.
        BigInteger most = BigInteger.valueOf(MAX).multiply(BigInteger.valueOf(limit)).divide(BigInteger.valueOf(periodMs));
        long maxBurst = most.compareTo(BigInteger.valueOf(MAX)) < 0 ? most.longValue() : MAX;
        long burst = burstWord == null ? Math.min(limit, maxBurst) : ranged(burstWord, "BURST", 1, maxBurst);
        return new Requests.Gcra(periodMs, limit, burst, units, extras);
    }

    /** REFUND and BLOCK are refused on the _RO commands, which write nothing. */
    static void checkMode(Extras extras, boolean peek) {
        if (peek && extras.refund() != null) {
            throw error("REFUND is an option of the recording commands, not of _RO");
        }
        if (peek && extras.blockMs() != null) {
            throw error("BLOCK is an option of the recording commands, not of _RO");
        }
    }
}
