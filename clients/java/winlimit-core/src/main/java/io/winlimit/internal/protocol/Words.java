package io.winlimit.internal.protocol;

import io.winlimit.model.Command;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A command line's words as the bytes sent: the constant words (commands' names, option words)
 * encoded once and shared, numbers written straight to ASCII digits. Every call sends a few of
 * each, so encoding them per call would be most of the line's garbage. The shared arrays are
 * never written to, by this code or by an executor.
 */
public final class Words {
    private Words() {}

    private static final Map<String, byte[]> CONSTANT = constants();

    private static Map<String, byte[]> constants() {
        Map<String, byte[]> words = new HashMap<>();
        for (Command command : Command.values()) {
            words.put(command.command(), utf8(command.command()));
            words.put(command.command() + "_RO", utf8(command.command() + "_RO"));
            words.put(functionName(command.command()), utf8(functionName(command.command())));
            words.put(functionName(command.command() + "_RO"), utf8(functionName(command.command() + "_RO")));
        }
        for (String word : List.of("COST", "REFUND", "BLOCK", "ALIGN", "BUCKET", "BURST", "FCALL", "FCALL_RO", "EVALSHA", "1")) {
            words.put(word, utf8(word));
        }
        return Map.copyOf(words);
    }

    private static final byte[][] WRITERS = names("");
    private static final byte[][] READERS = names("_RO");

    private static byte[][] names(String suffix) {
        byte[][] out = new byte[Command.values().length][];
        for (Command command : Command.values()) {
            out[command.ordinal()] = CONSTANT.get(command.command() + suffix);
        }
        return out;
    }

    /**
     * The command's name as sent: its reader ({@code _RO}) for a peek.
     *
     * @param command the command
     * @param peek true for its reader
     * @return the name's bytes, shared
     */
    public static byte[] name(Command command, boolean peek) {
        return (peek ? READERS : WRITERS)[command.ordinal()];
    }

    /** The library's function for a command: WINLIMIT.SLIDE_RO is winlimit_slide_ro. */
    static String functionName(String command) {
        return command.toLowerCase(java.util.Locale.ROOT).replace('.', '_');
    }

    /**
     * A word's UTF-8 bytes: the shared array for a constant word, else a new one.
     *
     * @param word the word
     * @return its bytes
     */
    public static byte[] of(String word) {
        byte[] constant = CONSTANT.get(word);
        return constant != null ? constant : utf8(word);
    }

    /**
     * A string's UTF-8 bytes.
     *
     * @param text the string
     * @return a new array of its bytes
     */
    public static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Bytes as text.
     *
     * @param bytes UTF-8 bytes
     * @return the text they encode
     */
    public static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * A number in decimal, as Long.toString writes it, without the String between.
     *
     * @param value the number
     * @return its ASCII digits, after a '-' when negative
     */
    public static byte[] number(long value) {
        if (value == Long.MIN_VALUE) {
            return utf8(Long.toString(value));
        }
        boolean negative = value < 0;
        long rest = Math.abs(value);
        int digits = 1;
        for (long v = rest; v >= 10; v /= 10) {
            digits++;
        }
        byte[] out = new byte[digits + (negative ? 1 : 0)];
        for (int i = out.length - 1; i >= out.length - digits; i--) {
            out[i] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        if (negative) {
            out[0] = '-';
        }
        return out;
    }
}
