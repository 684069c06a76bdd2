package io.winlimit.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.winlimit.AsyncLimiter;
import io.winlimit.Limiter;
import io.winlimit.ReactiveLimiter;
import io.winlimit.memory.MemoryLimiter;
import io.winlimit.model.CallOptions;
import io.winlimit.model.Command;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.model.RedisServerException;
import io.winlimit.model.SlideOptions;
import io.winlimit.support.Spec;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The client's lists of commands are the module's command table
 * (clients/spec/command_table.json, generated from src/redis/commands.rs): the registry of
 * {@link Command} (each command's method, state kind and options), and what is derived from it:
 * the methods every limiter has, the options a refund repeats, the memory limiter's state.
 * Each test fails naming the row a list misses, as the Python, Node and Go clients' do.
 */
class SpecTableTest {
    /** The rows with a client method (the module's own, CL.THROTTLE, have none). */
    private static List<JsonNode> clientRows() {
        List<JsonNode> rows = new ArrayList<>();
        Spec.load("command_table.json").get("commands").forEach(row -> {
            if (!row.get("method").isNull()) {
                rows.add(row);
            }
        });
        return rows;
    }

    /** The row's recording command: itself, or the reader's partner. */
    private static String writer(JsonNode row) {
        return row.get("records").asBoolean() ? row.get("name").asText() : row.get("partner").asText();
    }

    @Test
    void theRegistryDeclaresEveryRowsMethodStateAndOptions() {
        for (JsonNode row : clientRows()) {
            String name = row.get("name").asText();
            Command command = Command.ofWriter(writer(row))
                    .orElseThrow(() -> new AssertionError("the registry has no " + writer(row) + " (" + name + ")"));
            assertEquals(row.get("method").asText(), command.method(), name + " method");
            assertEquals(row.get("state").asText(), command.state().tableName(), name + " state");
            Set<String> options = new TreeSet<>(command.shape());
            options.add("cost");
            if (row.get("records").asBoolean()) {
                options.addAll(List.of("refund", "block_ms"));
            }
            Set<String> table = new TreeSet<>();
            row.get("options").forEach(o -> table.add(o.get("client").asText()));
            assertEquals(table, options, name + " options");
        }
    }

    @Test
    void theRegistryHasNoCommandTheTableLacks() {
        Set<String> writers = new TreeSet<>();
        clientRows().forEach(row -> writers.add(writer(row)));
        for (Command command : Command.values()) {
            assertTrue(writers.contains(command.command()), "the registry declares " + command.command() + ", which the table lacks");
        }
    }

    @Test
    void theMemoryLimiterKeepsEachRowsStateKind() {
        for (JsonNode row : clientRows()) {
            String command = row.get("name").asText();
            String state = row.get("state").asText();
            // A key holding another kind's state is WRONGTYPE: a kind's command on its own key is not.
            MemoryLimiter memory = new MemoryLimiter();
            memory.executeCommand(List.of(writer(row), "key", "1000", "5"));
            for (JsonNode other : clientRows()) {
                String otherCommand = other.get("name").asText();
                boolean sameKind = other.get("state").asText().equals(state);
                try {
                    memory.executeCommand(List.of(otherCommand, "key", "1000", "5"));
                    assertTrue(sameKind, otherCommand + " answers on a key " + command + " made (" + state + ")");
                } catch (RedisServerException e) {
                    assertEquals(sameKind, !e.getMessage().startsWith("WRONGTYPE"), otherCommand + " on " + command + "'s key: " + e.getMessage());
                }
            }
        }
    }

    @Test
    void everyRecordingMethodIsOnEveryLimiter() {
        for (JsonNode row : clientRows()) {
            String method = row.get("method").asText();
            for (Class<?> limiter : List.of(Limiter.class, AsyncLimiter.class, ReactiveLimiter.class, MemoryLimiter.class)) {
                boolean has = Arrays.stream(limiter.getMethods())
                        .anyMatch(m -> m.getName().equals(method) && Modifier.isPublic(m.getModifiers()));
                assertTrue(has, limiter.getSimpleName() + " has no " + method + " (" + row.get("name").asText() + ")");
            }
        }
    }

    @Test
    void aRefundRepeatsEveryOptionThatShapesTheLimit() {
        Set<String> shape = new TreeSet<>(Set.of("name")); // the clients' own: the policy's name in the headers
        for (JsonNode row : clientRows()) {
            if (!row.get("records").asBoolean()) {
                row.get("options").forEach(o -> shape.add(o.get("client").asText()));
            }
        }
        shape.remove("cost");
        assertEquals(shape, new TreeSet<>(CallOptions.KEPT_BY_REFUND));
    }

    @Test
    void asRefundKeepsWhatKeptByRefundNamesAndGivesBackTheCost() {
        for (JsonNode row : clientRows()) {
            if (!row.get("records").asBoolean()) {
                continue;
            }
            CallOptions<?> call = everyOption(row.get("method").asText());
            CallOptions<?> refund = call.asRefund();
            List<String> options = new ArrayList<>(List.of("name", "peek"));
            row.get("options").forEach(o -> options.add(o.get("client").asText()));
            for (String option : options) {
                String where = row.get("name").asText() + " " + option;
                if (CallOptions.KEPT_BY_REFUND.contains(option)) {
                    assertEquals(read(call, option), read(refund, option), where);
                } else if (option.equals("refund")) {
                    assertEquals(call.cost(), refund.refund(), where);
                } else {
                    assertEquals(read(everyOption(null), option), read(refund, option), where + " is left out");
                }
            }
        }
    }

    /** Every option the method takes set to a value that is not its default (null: none set). */
    private static CallOptions<?> everyOption(String method) {
        if (method == null) {
            return SlideOptions.defaults();
        }
        return switch (method) {
            case "slide" -> common(SlideOptions.defaults().bucket(Duration.ofMillis(250)));
            case "fixed" -> common(FixedOptions.defaults().align(true));
            case "gcra" -> common(GcraOptions.defaults().burst(9));
            default -> fail("no Java options for the table's method " + method);
        };
    }

    private static <T extends CallOptions<T>> T common(T options) {
        return options.cost(3).block(Duration.ofSeconds(7)).name("policy").waitUpTo(Duration.ofSeconds(2));
    }

    /** An option's value by the table's client name (a name Java lacks fails the test). */
    private static Object read(CallOptions<?> o, String option) {
        return switch (option) {
            case "cost" -> o.cost();
            case "refund" -> o.refund();
            case "block_ms" -> o.blockMs();
            case "peek" -> o.peek();
            case "name" -> o.name();
            case "bucket" -> o instanceof SlideOptions s ? s.bucketMs() : null;
            case "align" -> o instanceof FixedOptions f ? f.align() : null;
            case "burst" -> o instanceof GcraOptions g ? g.burst() : null;
            default -> fail("the Java options have no " + option);
        };
    }

    @Test
    void theMemoryLimiterAnswersEveryCommand() {
        for (JsonNode row : clientRows()) {
            String command = row.get("name").asText();
            // No arguments: the command's own parser answers (an arity error), not the dispatch.
            RedisServerException error = assertThrows(RedisServerException.class,
                    () -> new MemoryLimiter().executeCommand(List.of(command, "key")), command);
            assertFalse(error.getMessage().contains("unknown command"), "the memory limiter does not answer " + command);
        }
    }

    @Test
    void theMemoryLimiterRefusesACommandTheTableLacks() {
        RedisServerException error = assertThrows(RedisServerException.class,
                () -> new MemoryLimiter().executeCommand(List.of("WINLIMIT.NOPE", "key", "1000", "5")));
        assertTrue(error.getMessage().contains("unknown command"), error.getMessage());
    }

    @Test
    void waitIsNotRepeatedByARefund() {
        assertEquals(java.util.OptionalLong.empty(), common(SlideOptions.defaults()).asRefund().waitMs());
    }
}
