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
    // The arrays still open: the innermost, being filled (null at the top level), and those
    // around it, a stack made only for a nested reply. A winlimit reply is one flat array, so
    // a call makes no stack at all.
    private List<Object> innermost;
    private Deque<List<Object>> outer;

    ReplyOutput() {
        super(ByteArrayCodec.INSTANCE, null);
    }

    private void add(Object value) {
        if (innermost == null) {
            output = value;
        } else {
            innermost.add(value);
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
        if (innermost != null) {
            if (outer == null) {
                outer = new ArrayDeque<>();
            }
            outer.push(innermost);
        }
        innermost = list;
    }

    @Override
    public void complete(int depth) {
        while (open() > depth) {
            innermost = outer == null || outer.isEmpty() ? null : outer.pop();
        }
    }

    private int open() {
        return (innermost == null ? 0 : 1) + (outer == null ? 0 : outer.size());
    }
}
