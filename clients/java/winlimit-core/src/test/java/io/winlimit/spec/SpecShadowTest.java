package io.winlimit.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.winlimit.internal.http.ShadowLog;
import io.winlimit.model.Decision;
import io.winlimit.support.Spec;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** clients/spec/shadow.json: shadow mode's warnings, counts and fields, on a clock of the test's own. */
class SpecShadowTest {
    private static final JsonNode SPEC = Spec.load("shadow.json");

    @TestFactory
    Stream<DynamicTest> everyCaseWarnsAndCountsAsTheSpecSays() {
        return StreamSupport.stream(SPEC.get("cases").spliterator(), false).map(c -> DynamicTest.dynamicTest(
                c.get("name").asText(), () -> {
                    double[] now = {0};
                    ShadowLog log = new ShadowLog(c.get("log_keys").asInt(), () -> now[0]);
                    int i = 0;
                    for (JsonNode step : c.get("steps")) {
                        now[0] = step.get("at_ms").asDouble();
                        Decision d = Spec.decision(Spec.call(c.get("call")), step.get("reply"));
                        String warning = log.record(step.get("key").asText(), d);
                        JsonNode expected = step.get("warning");
                        assertEquals(expected == null || expected.isNull() ? null : expected.asText(), warning, "step " + i);
                        if (step.has("fields")) {
                            assertEquals(Spec.fields(step.get("fields")), ShadowLog.shadowFields(d.headers()), "step " + i);
                        }
                        i++;
                    }
                    assertEquals(c.get("counted").asLong(), log.counted());
                }));
    }
}
