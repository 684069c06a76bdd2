package io.winlimit.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.winlimit.LimiterConfig;
import io.winlimit.model.RedisServerException;
import io.winlimit.support.Spec;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** clients/spec/decisions.json, generated from the module's core: the memory limiter gives every
 * reply and every error text, call for call, at the same times. */
class SpecDecisionsTest {
    private static final JsonNode SPEC = Spec.load("decisions.json");

    @TestFactory
    Stream<DynamicTest> theMemoryLimiterAnswersAsTheModule() {
        return StreamSupport.stream(SPEC.get("cases").spliterator(), false).map(c -> DynamicTest.dynamicTest(
                c.get("name").asText(), () -> {
                    long[] now = {0};
                    MemoryLimiter limiter = new MemoryLimiter(LimiterConfig.defaults(), MemoryLimiter.DEFAULT_MAX_KEYS,
                            () -> now[0], 10_000);
                    int i = 0;
                    for (JsonNode call : c.get("calls")) {
                        now[0] = call.get("now").asLong();
                        List<String> args = Spec.strings(call.get("args"));
                        List<String> line = new ArrayList<>(args);
                        line.add(1, "k");
                        if (call.has("reply")) {
                            assertArrayEquals(Spec.longs(call.get("reply")), limiter.executeCommand(line), "call " + i + " " + args);
                        } else {
                            RedisServerException e = assertThrows(RedisServerException.class, () -> limiter.executeCommand(line),
                                    "call " + i + " " + args);
                            assertEquals(call.get("error").asText(), e.getMessage(), "call " + i + " " + args);
                        }
                        i++;
                    }
                }));
    }
}
