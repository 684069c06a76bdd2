package io.winlimit.spring.boot.app;

import java.util.List;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import io.winlimit.spring.boot.annotation.RateLimit;

/**
 * A test application secured by Spring Security: every request needs HTTP Basic as one of
 * {@link #USERS} (each one's password is its name backwards), and the handler's key is the
 * {@code @AuthenticationPrincipal} Security resolves. Start {@link Application} with
 * {@link Servlet} or {@link Reactive}, the stack's security (this class holds them and is no
 * configuration itself: Spring would register every nested configuration of one, both stacks').
 */
public final class SecuredApp {
    /** The users who may log in. */
    public static final List<String> USERS = List.of("ann", "bob");

    private SecuredApp() {}

    /** The application: the starter's auto-configuration and {@link Account}; no scanning. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Account.class)
    public static class Application {}

    /** The handler: one request a minute per authenticated user (policy per-user). */
    @RestController
    public static class Account {
        @RateLimit(value = "per-user", key = "'account:' + #user.username")
        @GetMapping("/account")
        public String account(@AuthenticationPrincipal UserDetails user) {
            return "account of " + user.getUsername();
        }
    }

    /** Spring MVC's security: a servlet filter before the handler. */
    @Configuration(proxyBeanMethods = false)
    @EnableWebSecurity
    public static class Servlet {
        @Bean
        SecurityFilterChain basicForEveryRequest(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults()).build();
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(USERS.stream().map(SecuredApp::user).toList());
        }
    }

    /** WebFlux's security: a web filter before the handler. */
    @Configuration(proxyBeanMethods = false)
    @EnableWebFluxSecurity
    public static class Reactive {
        @Bean
        SecurityWebFilterChain basicForEveryExchange(ServerHttpSecurity http) {
            return http.authorizeExchange(exchanges -> exchanges.anyExchange().authenticated())
                    .httpBasic(Customizer.withDefaults()).build();
        }

        @Bean
        MapReactiveUserDetailsService users() {
            return new MapReactiveUserDetailsService(USERS.stream().map(SecuredApp::user).toList());
        }
    }

    /** The password of {@code name}: its name backwards. */
    public static String password(String name) {
        return new StringBuilder(name).reverse().toString();
    }

    private static UserDetails user(String name) {
        return User.withUsername(name).password("{noop}" + password(name)).roles("USER").build();
    }
}
