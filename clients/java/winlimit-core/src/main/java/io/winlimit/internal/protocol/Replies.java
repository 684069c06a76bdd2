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
        if (!(reply instanceof List<?> list) || list.size() != 5 || !list.stream().allMatch(Long.class::isInstance)) {
            throw new WinlimitException("a winlimit reply has five integers, not " + describe(reply), null);
        }
        long[] f = list.stream().mapToLong(Long.class::cast).toArray();
        return new Decision(f[0] == 1, f[1], f[2], f[3], f[4], policies, backend);
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
