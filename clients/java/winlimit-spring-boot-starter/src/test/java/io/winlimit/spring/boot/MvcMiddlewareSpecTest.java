package io.winlimit.spring.boot;

import org.springframework.boot.WebApplicationType;

/** clients/spec/middleware.json on Spring MVC (Tomcat). */
class MvcMiddlewareSpecTest extends AbstractMiddlewareSpecTest {
    @Override
    WebApplicationType stack() {
        return WebApplicationType.SERVLET;
    }
}
