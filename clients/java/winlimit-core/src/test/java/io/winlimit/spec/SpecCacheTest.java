package io.winlimit.spec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.winlimit.internal.RejectionCache;
import io.winlimit.model.Decision;
import io.winlimit.internal.protocol.Call;
import io.winlimit.support.Spec;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** clients/spec/cache.json: the rejection cache, on a clock of the test's own. */
class SpecCacheTest {
    private static final JsonNode SPEC = Spec.load("cache.json");

    @TestFactory
    Stream<DynamicTest> everyCaseAnswersAsTheSpecSays() {
        return StreamSupport.stream(SPEC.get("cases").spliterator(), false).map(c -> DynamicTest.dynamicTest(
                c.get("name").asText(), () -> {
                    double[] now = {0};
                    RejectionCache cache = new RejectionCache(c.get("size").asInt(), () -> now[0]);
                    int i = 0;
                    for (JsonNode step : c.get("steps")) {
                        now[0] = step.get("at_ms").asDouble();
                        Call call = callOf(step);
                        if (step.has("reply")) {
                            cache.remember(call, Spec.decision(call, step.get("reply")));
                        } else {
                            Decision answer = cache.answer(call);
                            if (step.get("answer").isNull()) {
                                assertNull(answer, "step " + i);
                            } else {
                                assertArrayEquals(Spec.longs(step.get("answer")), Spec.fieldsOf(answer), "step " + i);
                                assertTrue(answer.cached());
                                assertEquals(call.policies(), answer.policies());
                            }
                        }
                        i++;
                    }
                    assertEquals(c.get("held").asInt(), cache.held());
                }));
    }

    private static Call callOf(JsonNode step) {
        ObjectNode call = SPEC.get("call").deepCopy();
        ((com.fasterxml.jackson.databind.node.ArrayNode) call.get("args")).set(0, step.get("key"));
        if (step.has("peek")) {
            ((ObjectNode) call.get("options")).set("peek", step.get("peek"));
        }
        return Spec.call(call);
    }

    @Test
    void badSizesAreRefused() throws NoSuchMethodException {
        // The size is an int: a fraction, a boolean or a string cannot be passed at all.
        assertEquals(int.class, RejectionCache.class.getConstructor(int.class).getParameterTypes()[0]);
        for (JsonNode bad : SPEC.get("bad_sizes")) {
            if (bad.isIntegralNumber()) {
                assertThrows(IllegalArgumentException.class, () -> new RejectionCache(bad.asInt()), bad.toString());
                assertThrows(IllegalArgumentException.class,
                        () -> io.winlimit.LimiterConfig.defaults().cacheSize(bad.asInt()), bad.toString());
            } else {
                assertTrue(bad.isTextual() || bad.isBoolean() || bad.isFloatingPointNumber(), bad.toString());
            }
        }
    }
}
