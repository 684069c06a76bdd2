package io.winlimit.spring.boot;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import io.winlimit.spring.boot.annotation.RateLimit;
import io.winlimit.spring.boot.app.TestApp;

/** A mistake in a policy or a @RateLimit stops the application's start, with the reason; no
 * request ever finds it. (Nothing connects to Redis before the first request: no server.) */
class StartupCheckTest {
    private static final int NO_SERVER = 1;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Bare {}

    @RestController
    static class UnknownPolicy {
        @RateLimit("nope")
        @GetMapping("/x")
        String x() {
            return "x";
        }
    }

    @RestController
    static class KeyOfTheBody {
        @RateLimit(value = "api", key = "#body")
        @PostMapping("/y")
        String y(@RequestBody String body) {
            return body;
        }
    }

    @RestController
    static class KeyWithATypo {
        @RateLimit(value = "api", key = "#usrName")
        @GetMapping("/z/{userName}")
        String z(@PathVariable String userName) {
            return userName;
        }
    }

    @Test
    void aRateLimitNamingNoPolicyStopsTheStart() {
        assertRefused(UnknownPolicy.class, "@RateLimit on UnknownPolicy.x: no rate-limit policy nope under winlimit.policies");
    }

    @RestController
    static class FinalHandler {
        @RateLimit("api")
        @GetMapping("/f")
        final String f() {
            return "f";
        }
    }

    @Test
    void aKeyNamingTheRequestBodyPassesTheCheck() {
        // The key is evaluated over the arguments Spring resolved: the body is one of them.
        TestApp.start(WebApplicationType.SERVLET, NO_SERVER, new Class<?>[] {Bare.class, KeyOfTheBody.class}).close();
    }

    @Test
    void aFinalRateLimitMethodStopsTheStartOnMvcNamingWhy() {
        assertRefused(WebApplicationType.SERVLET, FinalHandler.class,
                "@RateLimit on FinalHandler.f cannot be limited: the method is final, private or static");
    }

    @Test
    void aFinalRateLimitMethodStopsTheStartOnWebFluxNamingWhy() {
        assertRefused(WebApplicationType.REACTIVE, FinalHandler.class,
                "@RateLimit on FinalHandler.f cannot be limited: the method is final, private or static");
    }

    @Test
    void aKeyNamingAnArgumentThatDoesNotExistStopsTheStart() {
        assertRefused(KeyWithATypo.class, "names #usrName, which is not an argument of the method nor #request;"
                + " the arguments are [userName]");
    }

    @Test
    void aBadPolicyPropertyStopsTheStartNamingIt() {
        // (A new policy each: these are default properties, below application.yml's.)
        assertRefused(Bare.class, "winlimit.policies.negative.windows[0].limit must be from 0 to 10^12, not -1",
                "winlimit.policies.negative.windows[0].window=1m", "winlimit.policies.negative.windows[0].limit=-1");
        assertRefused(Bare.class, "winlimit.policies.twice.windows fixed takes at most 1 window, not 2",
                "winlimit.policies.twice.algorithm=fixed", "winlimit.policies.twice.windows[0].window=1m",
                "winlimit.policies.twice.windows[0].limit=1", "winlimit.policies.twice.windows[1].window=1h",
                "winlimit.policies.twice.windows[1].limit=10");
        assertRefused(Bare.class, "winlimit.policies.styled.headers headers must be one of",
                "winlimit.policies.styled.windows[0].window=1m", "winlimit.policies.styled.windows[0].limit=1",
                "winlimit.policies.styled.headers=draft-12");
    }

    private static void assertRefused(Class<?> controller, String reason, String... properties) {
        assertRefused(WebApplicationType.SERVLET, controller, reason, properties);
    }

    private static void assertRefused(WebApplicationType stack, Class<?> controller, String reason, String... properties) {
        Exception refused = assertThrows(Exception.class,
                () -> TestApp.start(stack, NO_SERVER, new Class<?>[] {Bare.class, controller}, properties).close());
        StringBuilder all = new StringBuilder();
        for (Throwable t = refused; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        assertTrue(all.toString().contains(reason), all.toString());
    }
}
