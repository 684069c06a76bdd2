package io.winlimit.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winlimit.model.Backend;
import io.winlimit.model.Command;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.model.SlideOptions;
import io.winlimit.model.Window;
import io.winlimit.internal.protocol.Call;
import io.winlimit.internal.protocol.Commands;
import io.winlimit.internal.protocol.Replies;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** The shared cases of clients/spec, read at test time, and a builder of calls from them. A
 * method or an option the builder does not know fails the test: it never falls back. */
public final class Spec {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Spec() {}

    public static JsonNode load(String name) {
        try {
            return JSON.readTree(Repo.path("clients/spec/" + name).toFile());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read clients/spec/" + name, e);
        }
    }

    public static final Commands.Defaults DEFAULTS = new Commands.Defaults("winlimit", OptionalLong.empty());

    /** The call a case's {"method", "args", "options"} makes, with the limiter's defaults. */
    public static Call call(JsonNode call) {
        return call(call, DEFAULTS);
    }

    public static Call call(JsonNode call, Commands.Defaults defaults) {
        String method = call.get("method").asText();
        JsonNode args = call.get("args");
        JsonNode options = call.path("options");
        String key = args.get(0).asText();
        return switch (method) {
            case "slide" -> Commands.slide(defaults, key, windows(args), slideOptions(options));
            case "fixed" -> Commands.fixed(defaults, key, args.get(1).asLong(), args.get(2).asLong(), fixedOptions(options));
            case "gcra" -> Commands.gcra(defaults, key, args.get(1).asLong(), args.get(2).asLong(), gcraOptions(options));
            default -> throw new IllegalArgumentException("no limiter method " + method);
        };
    }

    /** A call's {"method", "args", "options"} run on a limiter: what every adapter test uses. */
    public interface Methods<T> {
        T slide(String key, List<Window> windows, SlideOptions options);

        T fixed(String key, Duration window, long limit, FixedOptions options);

        T gcra(String key, Duration period, long limit, GcraOptions options);
    }

    public static <T> T run(JsonNode call, String key, Methods<T> methods) {
        String method = call.get("method").asText();
        JsonNode args = call.get("args");
        JsonNode options = call.path("options");
        return switch (method) {
            case "slide" -> methods.slide(key, windows(args), slideOptions(options));
            case "fixed" -> methods.fixed(key, Duration.ofMillis(args.get(1).asLong()), args.get(2).asLong(), fixedOptions(options));
            case "gcra" -> methods.gcra(key, Duration.ofMillis(args.get(1).asLong()), args.get(2).asLong(), gcraOptions(options));
            default -> throw new IllegalArgumentException("no limiter method " + method);
        };
    }

    private static List<Window> windows(JsonNode args) {
        if (args.get(1).isArray()) {
            List<Window> out = new ArrayList<>();
            for (JsonNode pair : args.get(1)) {
                out.add(Window.ofMillis(pair.get(0).asLong(), pair.get(1).asLong()));
            }
            return out;
        }
        return List.of(Window.ofMillis(args.get(1).asLong(), args.get(2).asLong()));
    }

    private static SlideOptions slideOptions(JsonNode options) {
        SlideOptions out = SlideOptions.defaults();
        for (Iterator<Map.Entry<String, JsonNode>> it = options.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            out = switch (e.getKey()) {
                case "bucket" -> out.bucket(Duration.ofMillis(e.getValue().asLong()));
                default -> common(out, e.getKey(), e.getValue());
            };
        }
        return out;
    }

    private static FixedOptions fixedOptions(JsonNode options) {
        FixedOptions out = FixedOptions.defaults();
        for (Iterator<Map.Entry<String, JsonNode>> it = options.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            out = switch (e.getKey()) {
                case "align" -> out.align(e.getValue().asBoolean());
                default -> common(out, e.getKey(), e.getValue());
            };
        }
        return out;
    }

    private static GcraOptions gcraOptions(JsonNode options) {
        GcraOptions out = GcraOptions.defaults();
        for (Iterator<Map.Entry<String, JsonNode>> it = options.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            out = switch (e.getKey()) {
                case "burst" -> out.burst(e.getValue().asLong());
                default -> common(out, e.getKey(), e.getValue());
            };
        }
        return out;
    }

    private static <T extends io.winlimit.model.CallOptions<T>> T common(T options, String name, JsonNode value) {
        return switch (name) {
            case "cost" -> options.cost(value.asLong());
            case "refund" -> options.refund(value.asLong());
            case "block_ms" -> options.block(Duration.ofMillis(value.asLong()));
            case "peek" -> options.peek(value.asBoolean());
            case "name" -> options.name(value.asText());
            default -> throw new IllegalArgumentException("no option " + name + " for this method");
        };
    }

    /** The option names a method takes, as the registry (Command) declares them, for checking
     * against commands.json. */
    public static List<String> optionsOf(String method) {
        Command command = java.util.Arrays.stream(Command.values()).filter(c -> c.method().equals(method)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no limiter method " + method));
        List<String> out = new ArrayList<>(List.of("cost", "refund", "block_ms", "peek", "name"));
        out.addAll(command.shape());
        return out;
    }

    public static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    public static List<Object> reply(JsonNode array) {
        List<Object> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asLong()));
        return out;
    }

    public static long[] longs(JsonNode array) {
        long[] out = new long[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asLong();
        }
        return out;
    }

    public static Decision decision(Call call, JsonNode reply) {
        return Replies.decision(reply(reply), call.policies(), Backend.MODULE);
    }

    public static Map<String, String> fields(JsonNode object) {
        Map<String, String> out = new LinkedHashMap<>();
        object.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    public static long[] fieldsOf(Decision d) {
        return new long[] {d.allowed() ? 1 : 0, d.limit(), d.remaining(), d.retryAfterMs(), d.resetAfterMs()};
    }
}
