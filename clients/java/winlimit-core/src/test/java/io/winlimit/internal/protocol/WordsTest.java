package io.winlimit.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The numbers of a command line, written straight to bytes, read as Long.toString writes them. */
class WordsTest {
    private static String written(long value) {
        return new String(Words.number(value), StandardCharsets.US_ASCII);
    }

    @Test
    void everyDigitCountAndSignIsWrittenAsLongToStringWritesIt() {
        List<Long> values = new ArrayList<>(List.of(0L, 1L, -1L, 9L, 10L, -10L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1));
        for (long power = 1; power > 0 && power <= Long.MAX_VALUE / 10; power *= 10) {
            values.addAll(List.of(power - 1, power, power + 1, -power, -(power - 1)));
        }
        for (long value : values) {
            assertEquals(Long.toString(value), written(value));
        }
    }

    @Test
    void randomNumbersAreWrittenAsLongToStringWritesThem() {
        SplittableRandom random = new SplittableRandom(45);
        for (int i = 0; i < 10_000; i++) {
            long value = random.nextLong() >> random.nextInt(64);
            assertEquals(Long.toString(value), written(value));
        }
    }
}
