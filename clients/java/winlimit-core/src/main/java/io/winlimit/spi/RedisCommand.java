package io.winlimit.spi;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One command line for an executor to send.
 *
 * @param args the command and its arguments, as bytes (integers as decimal text); none null
 * @param key the limiter's key: a cluster executor sends the command to the node serving it
 * @param keyIndex where {@code key} stands in {@code args}, or -1 for a command without it
 *     (FUNCTION LOAD, SCRIPT LOAD...), which goes to that node all the same
 */
public record RedisCommand(List<byte[]> args, byte[] key, int keyIndex) {
    /**
     * Copies {@code args} into an unmodifiable list (the byte arrays themselves are shared).
     *
     * @param args the command and its arguments, as bytes
     * @param key the limiter's key
     * @param keyIndex where {@code key} stands in {@code args}, or -1
     */
    public RedisCommand {
        // Copied unless it is already an unmodifiable list of the JDK's (the limiter's lines
        // are): a copy per call for nothing otherwise.
        args = List.copyOf(args);
    }

    /**
     * The command's name, e.g. "WINLIMIT.SLIDE" or "FCALL".
     *
     * @return the name, as UTF-8 text
     */
    public String name() {
        return new String(args.get(0), StandardCharsets.UTF_8);
    }

    /**
     * The arguments after the name.
     *
     * @return the arguments, unmodifiable
     */
    public List<byte[]> arguments() {
        return args.subList(1, args.size());
    }

    /** The command as text, for messages. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (byte[] arg : args) {
            out.append(out.length() == 0 ? "" : " ").append(new String(arg, StandardCharsets.UTF_8));
        }
        return out.length() > 200 ? out.substring(0, 200) + "..." : out.toString();
    }
}
