package io.winlimit.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.winlimit.model.Decision;
import io.winlimit.model.HeaderStyle;
import io.winlimit.support.Spec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** clients/spec/header_styles.json: the fields of each style, and of two limits stacked. */
class SpecHeaderStylesTest {
    private static final JsonNode SPEC = Spec.load("header_styles.json");

    private static HeaderStyle style(String label) {
        return label.equals("null") ? HeaderStyle.NONE : HeaderStyle.of(label);
    }

    @TestFactory
    Stream<DynamicTest> everyStyleGivesItsFields() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : SPEC.get("cases")) {
            c.get("fields").fields().forEachRemaining(e -> tests.add(DynamicTest.dynamicTest(
                    c.get("name").asText() + " [" + e.getKey() + "]", () -> {
                        Decision d = Spec.decision(Spec.call(c.get("call")), c.get("reply"));
                        assertEquals(Spec.fields(e.getValue()), d.headers(style(e.getKey()), c.get("now_ms").asLong()));
                    })));
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> stackedLimitsCombine() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : SPEC.get("stacked")) {
            c.get("fields").fields().forEachRemaining(e -> tests.add(DynamicTest.dynamicTest(
                    c.get("name").asText() + " [" + e.getKey() + "]", () -> {
                        HeaderStyle s = style(e.getKey());
                        long now = c.get("now_ms").asLong();
                        Map<String, String> on = fieldsOf(c.get("on"), s, now);
                        Map<String, String> added = fieldsOf(c.get("added"), s, now);
                        assertEquals(Spec.fields(e.getValue()), s.merged(on, added));
                    })));
        }
        return tests.stream();
    }

    private static Map<String, String> fieldsOf(JsonNode side, HeaderStyle style, long now) {
        return Spec.decision(Spec.call(side.get("call")), side.get("reply")).headers(style, now);
    }

    @Test
    void badStylesAreRefused() {
        for (JsonNode bad : SPEC.get("bad_styles")) {
            // Java's type allows only strings here: a number or a boolean cannot be passed at all.
            assertThrows(IllegalArgumentException.class, () -> HeaderStyle.of(bad.asText()), bad.toString());
        }
    }

    @Test
    void everyLabelNamesItsStyle() {
        for (HeaderStyle s : HeaderStyle.values()) {
            assertEquals(s, HeaderStyle.of(s.label()));
        }
    }
}
