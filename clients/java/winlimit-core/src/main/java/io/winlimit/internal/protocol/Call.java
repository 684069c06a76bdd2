package io.winlimit.internal.protocol;

import io.winlimit.model.Policy;
import java.util.List;

/**
 * One command line to send, and the policies its reply describes.
 *
 * @param args the command and its arguments; integers as decimal strings
 * @param key the key, for cluster clients that route by it
 * @param peek true for the {@code _RO} variants, which record nothing
 * @param refund true for a REFUND, which gives units back
 * @param policies the policies the decision reports, in order
 * @param waitMs how long the call may wait to be accepted; -1 when it does not wait
 */
public record Call(List<String> args, String key, boolean peek, boolean refund, List<Policy> policies, long waitMs) {
    /**
     * Copies the lists, so a call is immutable.
     *
     * @param args the command and its arguments
     * @param key the key
     * @param peek true for a {@code _RO} variant
     * @param refund true for a REFUND
     * @param policies the policies the decision reports
     * @param waitMs how long the call may wait, or -1
     */
    public Call {
        args = List.copyOf(args);
        policies = List.copyOf(policies);
    }

    /**
     * The command's name, e.g. "WINLIMIT.SLIDE_RO".
     *
     * @return the name, as the call has it
     */
    public String command() {
        return args.get(0);
    }

    /**
     * The library's function for the command: WINLIMIT.SLIDE_RO is winlimit_slide_ro.
     *
     * @return the function's name
     */
    public String functionName() {
        return command().toLowerCase(java.util.Locale.ROOT).replace('.', '_');
    }

    /**
     * The command line as one string, the rejection cache's key for it.
     *
     * @return the arguments, joined
     */
    public String line() {
        return String.join("\u0000", args);
    }
}
