package io.winlimit.spring.boot;

import org.springframework.boot.WebApplicationType;

/** The starter on WebFlux, served by Netty. */
class WebFluxTest extends AbstractWebTest {
    @Override
    WebApplicationType stack() {
        return WebApplicationType.REACTIVE;
    }
}
