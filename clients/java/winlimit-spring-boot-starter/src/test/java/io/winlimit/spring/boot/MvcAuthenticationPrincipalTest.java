package io.winlimit.spring.boot;

import org.springframework.boot.WebApplicationType;

/** The key from {@code @AuthenticationPrincipal} on Spring MVC (Tomcat), Spring Security's filter before it. */
class MvcAuthenticationPrincipalTest extends AbstractAuthenticationPrincipalTest {
    @Override
    WebApplicationType stack() {
        return WebApplicationType.SERVLET;
    }
}
