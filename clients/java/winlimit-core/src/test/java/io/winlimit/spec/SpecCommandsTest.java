package io.winlimit.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.winlimit.model.Command;
import io.winlimit.model.Policy;
import io.winlimit.internal.protocol.Call;
import io.winlimit.support.Spec;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** clients/spec/commands.json: each method's command line and policies. */
class SpecCommandsTest {
    private static final JsonNode SPEC = Spec.load("commands.json");

    @TestFactory
    Stream<DynamicTest> everyCaseSendsItsLineAndReportsItsPolicies() {
        return StreamSupport.stream(SPEC.get("cases").spliterator(), false).map(c -> DynamicTest.dynamicTest(
                c.get("name").asText(), () -> {
                    Call call = Spec.call(c.get("call"));
                    assertEquals(Spec.strings(c.get("args")), call.args());
                    List<Policy> expected = new ArrayList<>();
                    c.get("policies").forEach(p -> expected.add(
                            new Policy(p.get("name").asText(), p.get("quota").asLong(), p.get("window_ms").asLong())));
                    assertEquals(expected, call.policies());
                }));
    }

    @Test
    void everyMethodListedHasTheCommandAndOptionsListed() {
        List<String> methods = new ArrayList<>();
        SPEC.get("methods").fieldNames().forEachRemaining(methods::add);
        assertEquals(java.util.Arrays.stream(Command.values()).map(Command::method).toList(), methods);
        for (String method : methods) {
            JsonNode listed = SPEC.get("methods").get(method);
            assertEquals(new java.util.TreeSet<>(Spec.strings(listed.get("options"))),
                    new java.util.TreeSet<>(Spec.optionsOf(method)), method);
            JsonNode anyCall = SPEC.get("cases").findParents("method").stream()
                    .filter(n -> n.get("method").asText().equals(method)).findFirst().orElseThrow();
            assertEquals(listed.get("command").asText(), Spec.call(anyCall).command().replace("_RO", ""));
        }
    }

    @Test
    void unknownMethodsAreRefused() {
        for (JsonNode name : SPEC.get("unknown_methods")) {
            JsonNode call = Spec.load("commands.json").get("cases").get(0).get("call").deepCopy();
            ((com.fasterxml.jackson.databind.node.ObjectNode) call).put("method", name.asText());
            assertThrows(IllegalArgumentException.class, () -> Spec.call(call), name.asText());
        }
    }
}
