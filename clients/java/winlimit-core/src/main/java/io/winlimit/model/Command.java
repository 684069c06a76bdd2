package io.winlimit.model;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The client's commands, one row each and written nowhere else: the module's writer (its reader
 * is the {@code _RO} form), the limiter method that sends it, the state it keeps under its key
 * and the options that shape its limit (those its reader takes besides the cost; every command
 * also takes cost, refund, block, peek and name). The call builders (Commands), the memory
 * limiter's state and refusals and {@link CallOptions#KEPT_BY_REFUND} are read from here;
 * clients/spec/command_table.json, the module's table, is checked against it.
 */
public enum Command {
    /** The sliding window: an exact log, or a ring of buckets with BUCKET. */
    SLIDE("WINLIMIT.SLIDE", "slide", StateKind.LOG, "bucket"),
    /** A counter per fixed window. */
    FIXED("WINLIMIT.FIXED", "fixed", StateKind.COUNTER, "align"),
    /** The token bucket, as its theoretical arrival time. */
    GCRA("WINLIMIT.GCRA", "gcra", StateKind.TAT, "burst");

    /** What a command keeps under its key, as command_table.json names it ("state"). */
    public enum StateKind {
        /** The sliding window's log (a ring of buckets with the BUCKET option). */
        LOG,
        /** A fixed window's count. */
        COUNTER,
        /** GCRA's theoretical arrival time. */
        TAT;

        /**
         * The table's name: "log", "counter", "tat".
         *
         * @return the name
         */
        public String tableName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final String command;
    private final String method;
    private final StateKind state;
    private final Set<String> shape;
    // foreignShape, once every constant exists (a benign race: each computes the same set).
    private volatile Set<String> foreign;

    Command(String command, String method, StateKind state, String... shape) {
        this.command = command;
        this.method = method;
        this.state = state;
        this.shape = Set.of(shape);
    }

    /**
     * The module's writer, e.g. "WINLIMIT.SLIDE"; the reader adds "_RO".
     *
     * @return the command's name
     */
    public String command() {
        return command;
    }

    /**
     * The limiters' method that sends it, e.g. "slide".
     *
     * @return the method's name
     */
    public String method() {
        return method;
    }

    /**
     * What the command keeps under its key.
     *
     * @return its state kind
     */
    public StateKind state() {
        return state;
    }

    /**
     * The options that shape its limit, by the table's client names (e.g. "bucket").
     *
     * @return the option names, unmodifiable
     */
    public Set<String> shape() {
        return shape;
    }

    /**
     * Options its state kind's other commands take and it does not (a counter command without
     * ALIGN: "align"): it refuses them where that kind's parser would take them.
     *
     * @return the option names, unmodifiable
     */
    public Set<String> foreignShape() {
        Set<String> known = foreign;
        if (known == null) {
            Set<String> options = new TreeSet<>();
            for (Command other : values()) {
                if (other.state == state) {
                    options.addAll(other.shape);
                }
            }
            options.removeAll(shape);
            known = Set.copyOf(options);
            foreign = known;
        }
        return known;
    }

    /**
     * The command whose writer is {@code command} (upper case, without "_RO").
     *
     * @param command the writer's name
     * @return the command, empty for an unknown name
     */
    public static Optional<Command> ofWriter(String command) {
        return Arrays.stream(values()).filter(c -> c.command.equals(command)).findFirst();
    }

    /** Every command's shape options and the policy's name: what a refund repeats. */
    static Set<String> keptByRefund() {
        Set<String> kept = new LinkedHashSet<>();
        for (Command c : values()) {
            kept.addAll(c.shape);
        }
        kept.add("name");
        return Set.copyOf(kept);
    }
}
