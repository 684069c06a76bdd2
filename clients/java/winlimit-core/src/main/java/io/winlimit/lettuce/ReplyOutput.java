package io.winlimit.lettuce;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** Any reply, normalised as the executor SPI says: Long, byte[], List, null (RESP3's maps and
 * sets as flat lists, doubles and booleans as they are). */
final class ReplyOutput extends CommandOutput<byte[], byte[], Object> {
    // The arrays still open. The replies nest two deep at most: the default capacity (16)
    // would allocate for nothing on every call.
    private final Deque<List<Object>> open = new ArrayDeque<>(2);

    ReplyOutput() {
        super(ByteArrayCodec.INSTANCE, null);
    }

    private void add(Object value) {
        if (open.isEmpty()) {
            output = value;
        } else {
            open.peek().add(value);
        }
    }

    @Override
    public void set(ByteBuffer bytes) {
        if (bytes == null) {
            add(null);
            return;
        }
        byte[] out = new byte[bytes.remaining()];
        bytes.get(out);
        add(out);
    }

    @Override
    public void setSingle(ByteBuffer bytes) {
        set(bytes);
    }

    @Override
    public void setBigNumber(ByteBuffer bytes) {
        set(bytes);
    }

    @Override
    public void set(long integer) {
        add(integer);
    }

    @Override
    public void set(double number) {
        add(number);
    }

    @Override
    public void set(boolean value) {
        add(value);
    }

    @Override
    public void multi(int count) {
        List<Object> list = new ArrayList<>(Math.max(count, 0));
        add(list);
        open.push(list);
    }

    @Override
    public void complete(int depth) {
        while (open.size() > depth) {
            open.pop();
        }
    }
}
