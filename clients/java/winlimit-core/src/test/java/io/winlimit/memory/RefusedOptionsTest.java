package io.winlimit.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.winlimit.model.Command;
import io.winlimit.model.RedisServerException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A command whose state kind's parser takes an option the command does not (a counter command
 * without ALIGN) refuses it, from the registry alone: such a command needs no memory code.
 */
class RefusedOptionsTest {
    private static final Set<String> NO_ALIGN = Set.of("align");

    @Test
    void aCounterCommandWithoutAlignRefusesIt() {
        RedisServerException e = assertThrows(RedisServerException.class,
                () -> new CounterState().decide(1_000, List.of("1000", "5", "align"), false, Parse.MAX, NO_ALIGN));
        assertEquals("ERR unknown option 'ALIGN'", e.getMessage());
    }

    @Test
    void aCounterCommandWithoutAlignDecidesWithoutIt() {
        long[] reply = new CounterState().decide(1_000, List.of("1000", "5"), false, Parse.MAX, NO_ALIGN);
        assertArrayEquals(new long[] {1, 5, 4, 0, 1000}, reply);
    }

    @Test
    void theStateKindsParserAnswersBeforeTheRefusal() {
        RedisServerException e = assertThrows(RedisServerException.class,
                () -> new CounterState().decide(1_000, List.of("0", "5", "ALIGN"), false, Parse.MAX, NO_ALIGN));
        assertTrue(e.getMessage().contains("window_ms"), e.getMessage());
    }

    @Test
    void fixedRefusesNoneOfItsOwnOptions() {
        assertEquals(Set.of(), Command.FIXED.foreignShape());
    }
}
