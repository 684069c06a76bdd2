package io.winlimit.internal.text;

/** The one bit of JSON the client writes: a string, as the other clients quote keys and names. */
public final class Json {
    private Json() {}

    /**
     * {@code value} as a JSON string, as JSON.stringify writes it: {@code "} and {@code \\}
     * escaped, control characters as their short escapes or \\u00XX, anything else as it is.
     *
     * @param value the text, not null
     * @return the JSON string, quotes included
     */
    public static String quote(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
