package io.winlimit.internal.protocol;

import io.winlimit.model.Policy;
import java.util.ArrayList;
import java.util.List;

/**
 * One command line to send, and the policies its reply describes. The line is kept as the
 * bytes sent (built once, straight from the arguments); its text is derived when asked, by the
 * rejection cache and the memory fallback.
 *
 * @param bytes the command and its arguments, UTF-8; integers as decimal text
 * @param key the key, for cluster clients that route by it
 * @param peek true for the {@code _RO} variants, which record nothing
 * @param refund true for a REFUND, which gives units back
 * @param policies the policies the decision reports, in order
 * @param waitMs how long the call may wait to be accepted; -1 when it does not wait
 */
public record Call(List<byte[]> bytes, String key, boolean peek, boolean refund, List<Policy> policies, long waitMs) {
    /**
     * Copies the lists, so a call is immutable.
     *
     * @param bytes the command and its arguments, UTF-8
     * @param key the key
     * @param peek true for a {@code _RO} variant
     * @param refund true for a REFUND
     * @param policies the policies the decision reports
     * @param waitMs how long the call may wait, or -1
     */
    public Call {
        bytes = List.copyOf(bytes);
        policies = List.copyOf(policies);
    }

    /**
     * The command line as text.
     *
     * @return the command and its arguments, decoded
     */
    public List<String> args() {
        List<String> args = new ArrayList<>(bytes.size());
        for (byte[] word : bytes) {
            args.add(Words.text(word));
        }
        return args;
    }

    /**
     * The key's bytes, as sent.
     *
     * @return the line's second word
     */
    public byte[] keyBytes() {
        return bytes.get(1);
    }

    /**
     * The command's name, e.g. "WINLIMIT.SLIDE_RO".
     *
     * @return the name, as the call has it
     */
    public String command() {
        return Words.text(bytes.get(0));
    }

    /**
     * The library's function for the command: WINLIMIT.SLIDE_RO is winlimit_slide_ro.
     *
     * @return the function's name
     */
    public String functionName() {
        return Words.functionName(command());
    }

    /**
     * The command line as one string, the rejection cache's key for it.
     *
     * @return the arguments, joined
     */
    public String line() {
        return String.join("\u0000", args());
    }
}
