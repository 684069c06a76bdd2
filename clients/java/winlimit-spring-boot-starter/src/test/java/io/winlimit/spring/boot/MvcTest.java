package io.winlimit.spring.boot;

import org.springframework.boot.WebApplicationType;

/** The starter on Spring MVC, served by Tomcat. */
class MvcTest extends AbstractWebTest {
    @Override
    WebApplicationType stack() {
        return WebApplicationType.SERVLET;
    }
}
