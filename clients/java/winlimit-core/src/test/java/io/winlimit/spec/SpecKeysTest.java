package io.winlimit.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.winlimit.internal.http.IpKeys;
import io.winlimit.support.Spec;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** clients/spec/keys.json: the default key of a client's address. */
class SpecKeysTest {
    private static final JsonNode SPEC = Spec.load("keys.json");

    @TestFactory
    Stream<DynamicTest> everyAddressGivesItsKey() {
        return StreamSupport.stream(SPEC.get("cases").spliterator(), false).map(c -> DynamicTest.dynamicTest(
                c.get("address").asText() + " /" + c.get("ipv6_subnet").asInt(),
                () -> assertEquals(c.get("key").asText(), IpKeys.ipKey(c.get("address").asText(), c.get("ipv6_subnet").asInt()))));
    }

    @Test
    void badSubnetsAreRefused() throws NoSuchMethodException {
        // ipKey takes an int: a fraction, a boolean or a string cannot be passed at all.
        assertEquals(int.class, IpKeys.class.getMethod("ipKey", String.class, int.class).getParameterTypes()[1]);
        for (JsonNode bad : SPEC.get("bad_subnets")) {
            if (bad.isIntegralNumber()) {
                assertThrows(IllegalArgumentException.class, () -> IpKeys.ipKey("::1", bad.asInt()), bad.toString());
            } else {
                assertTrue(bad.isTextual() || bad.isBoolean() || bad.isFloatingPointNumber(), bad.toString());
            }
        }
    }
}
