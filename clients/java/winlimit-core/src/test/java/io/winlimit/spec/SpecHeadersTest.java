package io.winlimit.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.winlimit.LimiterConfig;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.internal.protocol.Call;
import io.winlimit.internal.protocol.Commands;
import io.winlimit.support.Spec;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** clients/spec/headers.json: the draft-11 fields of each reply, byte for byte. */
class SpecHeadersTest {
    private static final JsonNode SPEC = Spec.load("headers.json");

    @TestFactory
    Stream<DynamicTest> everyReplyGivesItsFields() {
        return StreamSupport.stream(SPEC.get("cases").spliterator(), false).map(c -> DynamicTest.dynamicTest(
                c.get("name").asText(), () -> {
                    Call call = Spec.call(c.get("call"));
                    assertEquals(Spec.strings(c.get("args")), call.args());
                    Decision decision = Spec.decision(call, c.get("reply"));
                    assertEquals(Spec.fields(c.get("headers")), decision.headers());
                }));
    }

    @TestFactory
    Stream<DynamicTest> aReplyNoPolicyDescribesIsAnError() {
        return StreamSupport.stream(SPEC.get("errors").spliterator(), false).map(c -> DynamicTest.dynamicTest(
                c.get("name").asText(), () -> {
                    Decision decision = Spec.decision(Spec.call(c.get("call")), c.get("reply"));
                    IllegalStateException e = assertThrows(IllegalStateException.class, decision::headers);
                    assertTrue(e.getMessage().contains(c.get("error").asText()), e.getMessage());
                }));
    }

    @Test
    void badNamesAreRefusedBeforeAnythingIsSent() {
        for (JsonNode name : SPEC.get("bad_names")) {
            assertThrows(IllegalArgumentException.class, () -> Commands.fixed(Spec.DEFAULTS, "k", 1000, 1,
                    FixedOptions.defaults().name(name.asText())), name.asText());
            assertThrows(IllegalArgumentException.class, () -> LimiterConfig.defaults().name(name.asText()), name.asText());
        }
    }
}
