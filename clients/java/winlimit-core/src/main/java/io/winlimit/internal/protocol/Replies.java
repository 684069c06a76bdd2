package io.winlimit.internal.protocol;

import io.winlimit.model.Backend;
import io.winlimit.model.Decision;
import io.winlimit.model.Policy;
import io.winlimit.model.WinlimitException;
import java.util.List;

/** Reading the five integers every winlimit command replies. */
public final class Replies {
    private Replies() {}

    /**
     * A decision from a command's reply: allowed, limit, remaining, retry_after_ms, reset_after_ms.
     *
     * @param reply the reply, normalised as the executor SPI says
     * @param policies the call's policies
     * @param backend which edition answered
     * @return the decision
     * @throws io.winlimit.model.WinlimitException if the reply is not five integers
     */
    public static Decision decision(Object reply, List<Policy> policies, Backend backend) {
        if (!(reply instanceof List<?> list) || list.size() != 5) {
            throw notFiveIntegers(reply);
        }
        // Read field by field, not through a stream: this runs on every call.
        return new Decision(field(list, 0) == 1, field(list, 1), field(list, 2), field(list, 3), field(list, 4),
                policies, backend);
    }

    private static long field(List<?> reply, int i) {
        if (reply.get(i) instanceof Long value) {
            return value;
        }
        throw notFiveIntegers(reply);
    }

    private static WinlimitException notFiveIntegers(Object reply) {
        return new WinlimitException("a winlimit reply has five integers, not " + describe(reply), null);
    }

    /**
     * A reply as text, for messages.
     *
     * @param reply the reply, normalised as the executor SPI says
     * @return the text
     */
    public static String describe(Object reply) {
        if (reply instanceof byte[] bytes) {
            return "\"" + new String(bytes, java.nio.charset.StandardCharsets.UTF_8) + "\"";
        }
        if (reply instanceof List<?> list) {
            StringBuilder out = new StringBuilder("[");
            for (Object item : list) {
                out.append(out.length() == 1 ? "" : ", ").append(describe(item));
            }
            return out.append(']').toString();
        }
        return String.valueOf(reply);
    }
}
