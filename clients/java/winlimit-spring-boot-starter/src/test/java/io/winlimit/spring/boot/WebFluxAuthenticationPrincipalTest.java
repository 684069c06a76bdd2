package io.winlimit.spring.boot;

import org.springframework.boot.WebApplicationType;

/** The key from {@code @AuthenticationPrincipal} on WebFlux, Spring Security's web filter before it. */
class WebFluxAuthenticationPrincipalTest extends AbstractAuthenticationPrincipalTest {
    @Override
    WebApplicationType stack() {
        return WebApplicationType.REACTIVE;
    }
}
