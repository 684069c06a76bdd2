package io.winlimit.internal.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A Duration argument is taken as whole milliseconds, or refused before anything is sent. */
class ArgsTest {
    @Test
    void wholeMillisecondsOfEitherSignAreTakenAsThey() {
        for (long ms : List.of(0L, 1L, -1L, 1500L, -1500L, 60_000L, Long.MAX_VALUE, Long.MIN_VALUE)) {
            assertEquals(ms, Args.millis("window", Duration.ofMillis(ms)));
        }
    }

    @Test
    void aFractionOfAMillisecondOfEitherSignIsRefused() {
        for (long nanos : List.of(1L, 999_999L, 1_500_000L, -1L, -1_500_000L, 60_000_000_001L)) {
            assertThrows(IllegalArgumentException.class, () -> Args.millis("window", Duration.ofNanos(nanos)));
        }
    }
}
