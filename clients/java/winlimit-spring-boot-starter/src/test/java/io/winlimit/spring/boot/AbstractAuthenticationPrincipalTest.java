package io.winlimit.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.winlimit.spring.boot.app.SecuredApp;
import io.winlimit.spring.boot.app.WebApp;
import io.winlimit.support.CallDeadline;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.WebApplicationType;

/**
 * The README's claim that a key may name an {@code @AuthenticationPrincipal}: a real
 * application secured by Spring Security (HTTP Basic) on a free loopback port, a real HTTP
 * client, a real redis-server with the module. The handler's key is the authenticated user's
 * name, so each user has a limit of their own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractAuthenticationPrincipalTest {
    /** Closed once every test has run (JUnit's @AutoClose): the application, then its server. */
    @AutoClose
    WebApp web;

    abstract WebApplicationType stack();

    @BeforeAll
    void start() {
        Class<?> security = stack() == WebApplicationType.SERVLET ? SecuredApp.Servlet.class : SecuredApp.Reactive.class;
        web = WebApp.start(stack(), new Class<?>[] {SecuredApp.Application.class, security},
                "winlimit.timeout=" + CallDeadline.TIMEOUT.toMillis() + "ms");
    }

    @BeforeEach
    void emptyRedis() {
        web.redis().flush();
    }

    @Test
    void twoAuthenticatedUsersHaveSeparateLimitsKeyedByTheirPrincipal() {
        HttpResponse<String> ann = asUser("ann");
        assertEquals(200, ann.statusCode());
        assertEquals("account of ann", ann.body());
        assertEquals(429, asUser("ann").statusCode(), "ann's second request in the minute");
        HttpResponse<String> bob = asUser("bob");
        assertEquals(200, bob.statusCode(), "bob's key has its own limit");
        assertEquals("account of bob", bob.body());
        assertEquals(":1", web.redis().command("EXISTS", "rl:account:ann"));
        assertEquals(":1", web.redis().command("EXISTS", "rl:account:bob"));
        assertEquals(":2", web.redis().command("DBSIZE"));
    }

    @Test
    void aRequestSecurityRefusesIsNeverCounted() {
        assertEquals(401, web.http().get("/account").statusCode());
        assertEquals(401, web.http().get("/account", "Authorization", basic("ann", "wrong")).statusCode());
        assertEquals(":0", web.redis().command("DBSIZE"));
    }

    private HttpResponse<String> asUser(String name) {
        return web.http().get("/account", "Authorization", basic(name, SecuredApp.password(name)));
    }

    private static String basic(String name, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((name + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
}
