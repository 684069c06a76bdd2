package io.winlimit.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.winlimit.model.Backend;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.model.ModuleNotLoadedException;
import io.winlimit.model.Policy;
import io.winlimit.model.RedisServerException;
import io.winlimit.model.SlideOptions;
import io.winlimit.model.Window;
import io.winlimit.support.CallDeadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every method over every adapter and view (Lettuce sync, async and reactive; Jedis; Spring
 * Data Redis over Lettuce and Jedis, a StringRedisTemplate, the reactive factory), on the
 * project's servers: with the module, on Functions (Redis 7.0 without the module) and on the
 * scripts (Redis 6.2 and 6.0). Expectations come from the limits and the replies themselves.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EveryMethodTest {
    record Target(String server, boolean module, Backend backend) {
        @Override
        public String toString() {
            return server + (module ? "+module" : "") + " (" + backend + ")";
        }
    }

    static final List<Target> TARGETS = List.of(new Target("redis-7.0", true, Backend.MODULE),
            new Target("redis-7.0", false, Backend.FUNCTIONS), new Target("redis-6.2", false, Backend.SCRIPTS),
            new Target("redis-6.0", false, Backend.SCRIPTS));

    private final Map<Target, RedisServer> servers = new LinkedHashMap<>();
    private final Map<String, Subject> subjects = new LinkedHashMap<>();
    private final Adapters adapters = new Adapters();

    @BeforeAll
    void startServers() throws Exception {
        for (Target t : TARGETS) {
            servers.put(t, new RedisServer(t.server(), t.module()));
        }
    }

    @AfterAll
    void stopServers() {
        adapters.close();
        servers.values().forEach(RedisServer::stop);
    }

    static Stream<Arguments> everyTargetAndAdapter() {
        List<Arguments> out = new ArrayList<>();
        for (Target t : TARGETS) {
            for (String adapter : Adapters.NAMES) {
                out.add(Arguments.of(t, adapter));
            }
        }
        return out.stream();
    }

    private Subject subject(Target target, String adapter) {
        return subjects.computeIfAbsent(target + adapter,
                k -> adapters.standalone(adapter, servers.get(target).port(), CallDeadline.config()));
    }

    private static String key() {
        return "test:" + UUID.randomUUID();
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("everyTargetAndAdapter")
    void slideAcceptsUpToTheLimitThenRejectsUntilTheWindowMoves(Target target, String adapter) {
        Subject s = subject(target, adapter);
        String key = key();
        for (long left = 2; left >= 0; left--) {
            Decision d = s.slide(key, Duration.ofMinutes(1), 3);
            assertTrue(d.allowed());
            assertEquals(3, d.limit());
            assertEquals(left, d.remaining());
            assertEquals(0, d.retryAfterMs());
            assertEquals(target.backend(), d.backend());
        }
        Decision rejected = s.slide(key, Duration.ofMinutes(1), 3);
        assertFalse(rejected.allowed());
        assertTrue(rejected.retryAfterMs() > 0 && rejected.retryAfterMs() <= 60_000, rejected.toString());
        assertTrue(rejected.resetAfterMs() >= rejected.retryAfterMs(), rejected.toString());
        assertEquals(String.valueOf(Math.max(1, (rejected.retryAfterMs() + 999) / 1000)), rejected.headers().get("Retry-After"));
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("everyTargetAndAdapter")
    void fixedTakesTheCostAndAPeekRecordsNothing(Target target, String adapter) {
        Subject s = subject(target, adapter);
        String key = key();
        FixedOptions two = FixedOptions.defaults().cost(2);
        assertEquals(3, s.fixed(key, Duration.ofMinutes(1), 5, two).remaining());
        Decision peek = s.fixed(key, Duration.ofMinutes(1), 5, two.peek(true));
        assertTrue(peek.allowed());
        assertEquals(3, peek.remaining()); // a peek records nothing: what is left now
        assertEquals(1, s.fixed(key, Duration.ofMinutes(1), 5, two).remaining());
        Decision rejected = s.fixed(key, Duration.ofMinutes(1), 5, two);
        assertFalse(rejected.allowed());
        assertEquals(1, rejected.remaining());
        assertTrue(rejected.retryAfterMs() > 0 && rejected.retryAfterMs() <= 60_000, rejected.toString());
        Decision never = s.fixed(key, Duration.ofMinutes(1), 5, FixedOptions.defaults().cost(6));
        assertFalse(never.allowed());
        assertEquals(-1, never.retryAfterMs());
        assertTrue(never.retryAfter().isEmpty());
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("everyTargetAndAdapter")
    void gcraHoldsTheBurstAndRefillsAtTheRate(Target target, String adapter) {
        Subject s = subject(target, adapter);
        String key = key();
        GcraOptions burst = GcraOptions.defaults().burst(3);
        for (long left = 2; left >= 0; left--) {
            Decision d = s.gcra(key, Duration.ofMinutes(1), 2, burst);
            assertTrue(d.allowed(), d.toString());
            assertEquals(3, d.limit());
            assertEquals(left, d.remaining());
        }
        Decision rejected = s.gcra(key, Duration.ofMinutes(1), 2, burst);
        assertFalse(rejected.allowed());
        // One unit comes back every period / limit = 30 s.
        assertTrue(rejected.retryAfterMs() > 0 && rejected.retryAfterMs() <= 30_000, rejected.toString());
        assertEquals(List.of(new Policy("winlimit", 3, 90_000)), rejected.policies());
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("everyTargetAndAdapter")
    void severalWindowsAreCheckedAtOnceAndNamedByTheirWindow(Target target, String adapter) {
        Subject s = subject(target, adapter);
        String key = key();
        List<Window> windows = List.of(Window.of(Duration.ofSeconds(10), 2), Window.of(Duration.ofHours(1), 5));
        SlideOptions named = SlideOptions.defaults().name("api").bucket(Duration.ofSeconds(5));
        assertTrue(s.slide(key, windows, named).allowed());
        Decision d = s.slide(key, windows, named);
        assertTrue(d.allowed());
        assertEquals(0, d.remaining());
        assertEquals(2, d.limit());
        assertEquals("\"api-10s\";q=2;w=10, \"api-3600s\";q=5;w=3600", d.headers().get("RateLimit-Policy"));
        assertTrue(d.headers().get("RateLimit").startsWith("\"api-10s\";r=0;t="), d.headers().toString());
        assertFalse(s.slide(key, windows, named).allowed());
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("everyTargetAndAdapter")
    void aRefundGivesUnitsBackAndABlockHoldsTheKey(Target target, String adapter) {
        Subject s = subject(target, adapter);
        String key = key();
        SlideOptions options = SlideOptions.defaults();
        assertEquals(1, s.slide(key, List.of(Window.of(Duration.ofMinutes(1), 3)), options.cost(2)).remaining());
        Decision refunded = s.slide(key, List.of(Window.of(Duration.ofMinutes(1), 3)), options.refund(1));
        assertEquals(2, refunded.remaining());
        String blocked = key();
        FixedOptions block = FixedOptions.defaults().block(Duration.ofMinutes(10));
        assertTrue(s.fixed(blocked, Duration.ofSeconds(1), 1, block).allowed());
        Decision held = s.fixed(blocked, Duration.ofSeconds(1), 1, block);
        assertFalse(held.allowed());
        assertTrue(held.retryAfterMs() > 60_000, "blocked for 10 minutes: " + held);
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("everyTargetAndAdapter")
    void resetDeletesTheKey(Target target, String adapter) {
        Subject s = subject(target, adapter);
        String key = key();
        s.fixed(key, Duration.ofMinutes(1), 1);
        assertFalse(s.fixed(key, Duration.ofMinutes(1), 1).allowed());
        assertTrue(s.reset(key));
        assertFalse(s.reset(key));
        assertTrue(s.fixed(key, Duration.ofMinutes(1), 1).allowed());
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("everyTargetAndAdapter")
    void theServersErrorsComeThroughWithItsText(Target target, String adapter) {
        Subject s = subject(target, adapter);
        RedisServerException e = assertThrows(RedisServerException.class,
                () -> s.fixed(key(), Duration.ofMinutes(1), 5, FixedOptions.defaults().cost(2).refund(1)));
        assertFalse(e instanceof ModuleNotLoadedException);
        assertTrue(e.getMessage().startsWith("ERR "), e.getMessage());
        assertTrue(e.getMessage().toUpperCase().contains("REFUND"), e.getMessage());
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("everyTargetAndAdapter")
    void badArgumentsThrowBeforeAnythingIsSent(Target target, String adapter) throws Exception {
        Subject s = subject(target, adapter);
        assertThrows(IllegalArgumentException.class, () -> s.fixed(null, Duration.ofMinutes(1), 1));
        assertThrows(IllegalArgumentException.class, () -> s.slide("k", List.of(), SlideOptions.defaults()));
        assertThrows(IllegalArgumentException.class, () -> s.fixed("k", Duration.ofNanos(1500), 1));
        assertThrows(IllegalArgumentException.class,
                () -> s.fixed("k", Duration.ofMinutes(1), 1, FixedOptions.defaults().name("zähler")));
        assertThrows(IllegalArgumentException.class,
                () -> s.fixed("k", Duration.ofMinutes(1), 1, FixedOptions.defaults().peek(true).waitUpTo(Duration.ofSeconds(1))));
        assertEquals(0L, servers.get(target).call("EXISTS", "k"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void theModuleAskedForOnAServerWithoutItNamesTheFix(Target target) {
        if (target.module()) {
            Subject s = adapters.standalone("lettuce", servers.get(target).port(), CallDeadline.config()
                    .backend(io.winlimit.model.BackendChoice.SCRIPTS));
            assertEquals(Backend.SCRIPTS, s.fixed(key(), Duration.ofMinutes(1), 1).backend());
            return;
        }
        Subject s = adapters.standalone("lettuce", servers.get(target).port(),
                CallDeadline.config().backend(io.winlimit.model.BackendChoice.MODULE));
        ModuleNotLoadedException e = assertThrows(ModuleNotLoadedException.class, () -> s.fixed(key(), Duration.ofMinutes(1), 1));
        assertTrue(e.getMessage().endsWith(" -- " + ModuleNotLoadedException.FIX), e.getMessage());
        assertInstanceOf(RedisServerException.class, e);
    }

    static Stream<Target> targets() {
        return TARGETS.stream();
    }
}
