package io.winlimit.spring.boot.app;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/** The test application: the starter's auto-configuration and {@link Endpoints}, with {@link PrincipalFromHeader}; no scanning. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({Endpoints.class, PrincipalFromHeader.class})
public class TestApp {
    /**
     * Spring Boot 3.5's security auto-configurations, which Spring Security on the test
     * classpath would turn on in every test app (each request then needing a login): left out,
     * so only {@link SecuredApp} is secured, by its own configuration. Boot 4.0 keeps them in a
     * module these tests do not have, and a name absent from the classpath is not excluded.
     */
    private static final String SECURITY_AUTOCONFIGURATIONS = String.join(",",
            "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration",
            "org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration",
            "org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration",
            "org.springframework.boot.autoconfigure.security.reactive.ReactiveSecurityAutoConfiguration",
            "org.springframework.boot.autoconfigure.security.reactive.ReactiveUserDetailsServiceAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.security.reactive.ReactiveManagementWebSecurityAutoConfiguration");

    /** Starts {@code sources} on a free loopback port, on Redis at {@code redisPort}. */
    public static ConfigurableApplicationContext start(WebApplicationType type, int redisPort, Class<?>[] sources,
                                                       String... properties) {
        List<String> all = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1",
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redisPort,
                "spring.data.redis.timeout=2s", "spring.main.banner-mode=off",
                "spring.autoconfigure.exclude=" + SECURITY_AUTOCONFIGURATIONS));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(sources).web(type).properties(all.toArray(String[]::new)).run();
    }

    public static ConfigurableApplicationContext start(WebApplicationType type, int redisPort, String... properties) {
        return start(type, redisPort, new Class<?>[] {TestApp.class}, properties);
    }
}
