package io.winlimit.breaker;

import io.winlimit.internal.breaker.Failures;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.winlimit.model.RedisServerException;
import io.winlimit.support.Spec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** clients/spec/breaker.json: the circuit breaker's states and actions, on a clock of the test's own. */
class SpecBreakerTest {
    private static final JsonNode SPEC = Spec.load("breaker.json");

    /** The case's own options over BreakerOptions' defaults: an option the case leaves out is
     * unset here too (max_open_ms unset follows open_ms), never the spec's default put in. */
    private static BreakerOptions options(JsonNode given) {
        BreakerOptions options = BreakerOptions.defaults();
        if (given.has("breaker")) {
            options = options.withEnabled(given.get("breaker").asBoolean());
        }
        if (given.has("failures")) {
            options = options.withFailures(given.get("failures").asInt());
        }
        if (given.has("open_ms")) {
            options = options.withOpen(Duration.ofMillis(given.get("open_ms").asLong()));
        }
        if (given.has("max_open_ms")) {
            options = options.withMaxOpen(Duration.ofMillis(given.get("max_open_ms").asLong()));
        }
        return options;
    }

    @Test
    void theDefaultsAreTheSharedOnes() {
        JsonNode d = SPEC.get("defaults");
        BreakerOptions defaults = BreakerOptions.defaults();
        assertEquals(d.get("breaker").asBoolean(), defaults.enabled());
        assertEquals(d.get("failures").asInt(), defaults.failures());
        assertEquals(d.get("open_ms").asLong(), defaults.openMs());
        assertEquals(d.get("max_open_ms").asLong(), defaults.maxOpenMs());
    }

    @Test
    void aLongerOpenPeriodGivenAloneIsItsOwnCapButAGivenCapIsKept() {
        assertEquals(60_000, BreakerOptions.defaults().withOpen(Duration.ofMinutes(1)).maxOpenMs());
        assertEquals(BreakerOptions.DEFAULT_MAX_OPEN_MS, BreakerOptions.defaults().withOpen(Duration.ofSeconds(2)).maxOpenMs());
        BreakerOptions capped = BreakerOptions.defaults().withMaxOpen(Duration.ofSeconds(5));
        assertThrows(IllegalArgumentException.class, () -> capped.withOpen(Duration.ofSeconds(6)));
    }

    @TestFactory
    Stream<DynamicTest> everyCaseActsAsTheSpecSays() {
        List<String> counted = Spec.strings(SPEC.get("counted_kinds"));
        return StreamSupport.stream(SPEC.get("cases").spliterator(), false).map(c -> DynamicTest.dynamicTest(
                c.get("name").asText(), () -> {
                    double[] now = {0};
                    CircuitBreaker breaker = new CircuitBreaker(options(c.get("options")), "", () -> now[0]);
                    List<List<String>> transitions = new ArrayList<>();
                    breaker.listen((b, t) -> transitions.add(List.of(t.to().label(), t.cause())));
                    boolean fallback = c.get("fallback").asBoolean();
                    Map<String, CircuitBreaker.Action> admitted = new HashMap<>();
                    int i = 0;
                    for (JsonNode step : c.get("steps")) {
                        now[0] = step.get("at_ms").asDouble();
                        transitions.clear();
                        String where = "step " + i + " " + step;
                        if (step.has("call")) {
                            CircuitBreaker.Action action = breaker.admit();
                            admitted.put(step.get("call").asText(), action);
                            assertEquals(step.get("action").asText(), label(action, fallback), where);
                        } else {
                            String outcome = step.get("outcome").asText();
                            breaker.done(admitted.get(step.get("done").asText()), counted.contains(outcome));
                        }
                        assertEquals(step.get("state").asText(), breaker.state().label(), where);
                        if (step.has("open_until_ms")) {
                            assertEquals(step.get("open_until_ms").asDouble(), breaker.openUntilMs(), where);
                        }
                        List<List<String>> expected = new ArrayList<>();
                        step.path("transitions").forEach(t -> expected.add(Spec.strings(t)));
                        assertEquals(expected, transitions, where);
                        i++;
                    }
                }));
    }

    private static String label(CircuitBreaker.Action action, boolean fallback) {
        return switch (action) {
            case SEND -> "send";
            case PROBE -> "probe";
            case REFUSE -> fallback ? "fallback" : "fail_fast";
        };
    }

    @Test
    void everyErrorReplyIsClassifiedAsTheSpecSays() {
        for (JsonNode e : SPEC.get("error_replies")) {
            RedisServerException error = new RedisServerException(e.get("reply").asText(), null);
            assertEquals(e.get("kind").asText(), Failures.kind(error), e.toString());
            assertEquals(e.get("counts").asBoolean(), Failures.counts(error), e.toString());
        }
        for (String kind : Spec.strings(SPEC.get("counted_kinds"))) {
            assertTrue(kind.equals("connection") || kind.equals("timeout") || Failures.UNAVAILABLE_REPLIES.contains(kind), kind);
        }
    }

    @Test
    void badOptionsAreRefused() throws NoSuchMethodException {
        for (JsonNode bad : SPEC.get("bad_options")) {
            boolean typed = true;
            for (JsonNode value : (Iterable<JsonNode>) bad::elements) {
                typed &= value.isIntegralNumber();
            }
            if (typed) {
                assertThrows(IllegalArgumentException.class, () -> options(bad), bad.toString());
            } else {
                // failures is an int, the periods Durations of whole ms and breaker a boolean: a
                // fraction, a string or a boolean in their place cannot be passed at all.
                assertEquals(int.class, BreakerOptions.class.getMethod("withFailures", int.class).getParameterTypes()[0]);
                assertEquals(boolean.class, BreakerOptions.class.getMethod("withEnabled", boolean.class).getParameterTypes()[0]);
            }
        }
    }
}
