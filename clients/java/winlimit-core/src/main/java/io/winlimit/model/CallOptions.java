package io.winlimit.model;

import io.winlimit.internal.text.Args;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The options every limiter method takes. Immutable: each {@code with} method returns a copy.
 * Values are checked where they are read, when the call is built, before anything is sent.
 *
 * @param <T> the options class itself
 */
public abstract class CallOptions<T extends CallOptions<T>> {
    /**
     * The options {@link #asRefund} repeats, by the names clients/spec/command_table.json gives
     * them: those that shape the limit (what the {@code _RO} readers take, but the cost) and the
     * policy's name in the header fields. A refund must meet the same limit the call met.
     * Derived from {@link Command}, the client's commands.
     */
    public static final Set<String> KEPT_BY_REFUND = Command.keptByRefund();

    Long cost;
    Long refund;
    Long blockMs;
    boolean peek;
    String name;
    Long waitMs;

    CallOptions() {}

    CallOptions(CallOptions<T> from) {
        cost = from.cost;
        refund = from.refund;
        blockMs = from.blockMs;
        peek = from.peek;
        name = from.name;
        waitMs = from.waitMs;
    }

    abstract T copy();

    /**
     * Units this request takes (COST); default 1.
     *
     * @param units the units, at least 1
     * @return a copy with this set
     */
    public T cost(long units) {
        T out = copy();
        out.cost = units;
        return out;
    }

    /**
     * Give back up to this many units, the newest first, instead of taking any (REFUND); the
     * decision is the peek that follows.
     *
     * @param units the units to give back, at least 1
     * @return a copy with this set
     */
    public T refund(long units) {
        T out = copy();
        out.refund = units;
        return out;
    }

    /** The call that gives back the units a call with these options took: REFUND of its cost
     * (default 1), with the options of {@link #KEPT_BY_REFUND} kept (the BUCKET, ALIGN or BURST
     * of its method, the name) and no block, wait or peek.
     *
     * @return a copy that refunds what these options take
     */
    public T asRefund() {
        T out = copy();
        out.refund = cost == null ? 1L : cost;
        out.cost = null;
        out.blockMs = null;
        out.peek = false;
        out.waitMs = null;
        return out;
    }

    /**
     * Once rejected, the key is refused for this long (BLOCK).
     *
     * @param block how long, in whole milliseconds
     * @return a copy with this set
     */
    public T block(Duration block) {
        T out = copy();
        out.blockMs = Args.millis("block", block);
        return out;
    }

    /**
     * Ask the {@code _RO} variant, which records nothing.
     *
     * @param peek true to only read the limit
     * @return a copy with this set
     */
    public T peek(boolean peek) {
        T out = copy();
        out.peek = peek;
        return out;
    }

    /**
     * The policy name for this call in the header fields.
     *
     * @param name the name (NAME)
     * @return a copy with this set
     */
    public T name(String name) {
        T out = copy();
        out.name = name;
        return out;
    }

    /** When rejected, sleep the decision's retryAfter and call again, until accepted or until
     * the next sleep would end more than {@code wait} after the call began; not with peek.
     *
     * @param wait how long the call may take in all
     * @return a copy with this set
     */
    public T waitUpTo(Duration wait) {
        T out = copy();
        out.waitMs = Args.millis("wait", wait);
        return out;
    }

    /**
     * What {@link #cost} set.
     *
     * @return the COST given, or empty if none was
     */
    public OptionalLong cost() {
        return cost == null ? OptionalLong.empty() : OptionalLong.of(cost);
    }

    /**
     * What {@link #refund} set.
     *
     * @return the REFUND given, or empty if none was
     */
    public OptionalLong refund() {
        return refund == null ? OptionalLong.empty() : OptionalLong.of(refund);
    }

    /**
     * What {@link #block} set.
     *
     * @return the BLOCK given, in milliseconds, or empty if none was
     */
    public OptionalLong blockMs() {
        return blockMs == null ? OptionalLong.empty() : OptionalLong.of(blockMs);
    }

    /**
     * What {@link #peek(boolean)} set.
     *
     * @return true if the call only reads
     */
    public boolean peek() {
        return peek;
    }

    /**
     * What {@link #name} set.
     *
     * @return the NAME given, or empty if none was
     */
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /**
     * What {@link #waitUpTo} set.
     *
     * @return the longest wait given, in milliseconds, or empty if none was
     */
    public OptionalLong waitMs() {
        return waitMs == null ? OptionalLong.empty() : OptionalLong.of(waitMs);
    }
}
