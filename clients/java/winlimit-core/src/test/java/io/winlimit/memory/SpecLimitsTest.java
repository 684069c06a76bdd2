package io.winlimit.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.winlimit.model.RedisServerException;
import io.winlimit.support.Spec;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** clients/spec/limits.json, generated from the module's parsers: the memory limiter accepts and
 * refuses every argument as the module does, with its exact error text. */
class SpecLimitsTest {
    private static final JsonNode SPEC = Spec.load("limits.json");

    @TestFactory
    Stream<DynamicTest> everyBoundAndErrorIsTheModules() {
        return StreamSupport.stream(SPEC.get("cases").spliterator(), false).map(c -> DynamicTest.dynamicTest(
                c.get("name").asText(), () -> {
                    MemoryLimiter limiter = new MemoryLimiter();
                    List<String> line = new ArrayList<>(List.of(c.get("command").asText(), "k"));
                    line.addAll(Spec.strings(c.get("args")));
                    if (c.get("error").isNull()) {
                        assertEquals(5, limiter.executeCommand(line).length);
                    } else {
                        RedisServerException e = assertThrows(RedisServerException.class, () -> limiter.executeCommand(line));
                        assertEquals(c.get("error").asText(), e.getMessage());
                    }
                }));
    }
}
