package io.winlimit.spring.boot.app;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * A stand-in for an application's authentication: the request's user is its {@code X-User}
 * header, as the request's {@code Principal} (the servlet filter on MVC, the web filter on
 * WebFlux; each stack ignores the other's).
 */
@Configuration(proxyBeanMethods = false)
public class PrincipalFromHeader {
    public static final String HEADER = "X-User";

    @Bean
    OncePerRequestFilter servletPrincipal() {
        return new OncePerRequestFilter() {
            @Override
            protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                    throws ServletException, IOException {
                String user = request.getHeader(HEADER);
                chain.doFilter(user == null ? request : new HttpServletRequestWrapper(request) {
                    @Override
                    public Principal getUserPrincipal() {
                        return () -> user;
                    }
                }, response);
            }
        };
    }

    @Bean
    WebFilter reactivePrincipal() {
        return (exchange, chain) -> {
            String user = exchange.getRequest().getHeaders().getFirst(HEADER);
            return chain.filter(user == null ? exchange : exchange.mutate().principal(Mono.just((Principal) () -> user)).build());
        };
    }
}
