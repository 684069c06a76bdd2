package io.winlimit.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import io.winlimit.LimiterConfig;
import io.winlimit.internal.http.MiddlewareDefaults;
import io.winlimit.internal.http.ShadowLog;
import io.winlimit.internal.library.Backends;
import io.winlimit.model.ModuleNotLoadedException;
import io.winlimit.model.RedisServerException;
import io.winlimit.internal.protocol.Commands;
import io.winlimit.support.Spec;
import org.junit.jupiter.api.Test;

/** clients/spec/constants.json: the texts and defaults every client writes. */
class SpecConstantsTest {
    private static final JsonNode SPEC = Spec.load("constants.json");

    @Test
    void theDefaultsAreTheSharedOnes() {
        JsonNode d = SPEC.get("defaults");
        LimiterConfig config = LimiterConfig.defaults();
        assertEquals(d.get("name").asText(), config.name());
        assertEquals(d.get("cache_size").asInt(), config.cacheSize());
        assertEquals(d.get("timeout_ms").asLong(), config.timeout().toMillis());
        assertEquals(d.get("timeout_ms").asLong(), MiddlewareDefaults.TIMEOUT.toMillis());
        assertEquals(d.get("prefix").asText(), MiddlewareDefaults.PREFIX);
        assertEquals(d.get("fail_open").asBoolean(), MiddlewareDefaults.FAIL_OPEN);
        assertEquals(d.get("shadow").asBoolean(), MiddlewareDefaults.SHADOW);
        assertEquals(d.get("shadow_log_keys").asInt(), ShadowLog.DEFAULT_KEYS);
    }

    @Test
    void anUnknownCommandNamesTheFix() {
        JsonNode m = SPEC.get("module_not_loaded");
        assertEquals(m.get("fix").asText(), ModuleNotLoadedException.FIX);
        for (JsonNode text : m.get("server_texts")) {
            Throwable e = Backends.translate(new RedisServerException(text.asText(), null));
            assertInstanceOf(ModuleNotLoadedException.class, e);
            assertEquals(text.asText() + m.get("separator").asText() + m.get("fix").asText(), e.getMessage());
        }
    }

    @Test
    void windowsAreLabelledAsTheSpecSays() {
        for (JsonNode pair : SPEC.get("window_labels")) {
            assertEquals(pair.get(1).asText(), Commands.windowLabel(pair.get(0).asLong()));
        }
    }
}
