package io.winlimit.servers;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A tiny RESP2 client of the tests' own, to set servers up and look at them without any of the
 * clients under test. Server errors come back as {@link Error} values, not thrown. */
public final class Resp implements AutoCloseable {
    /** A server's error reply. */
    public record Error(String text) {}

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public Resp(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        socket.setSoTimeout(30_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** One command's reply: Long, String, List, null or Error. */
    public Object call(String... args) throws IOException {
        StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
            b.append('$').append(bytes.length).append("\r\n").append(a).append("\r\n");
        }
        out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        return read();
    }

    /** One command on a fresh connection. */
    public static Object once(int port, String... args) throws IOException {
        try (Resp resp = new Resp(port)) {
            return resp.call(args);
        }
    }

    private Object read() throws IOException {
        int type = in.read();
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new Error(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(n + 2);
                return new String(data, 0, n, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("unexpected reply type " + type);
        }
    }

    private String line() throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            b.append((char) c);
        }
        in.read();
        return b.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
