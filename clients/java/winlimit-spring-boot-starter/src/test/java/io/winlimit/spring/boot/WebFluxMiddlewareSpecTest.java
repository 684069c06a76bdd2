package io.winlimit.spring.boot;

import org.springframework.boot.WebApplicationType;

/** clients/spec/middleware.json on WebFlux (Netty). */
class WebFluxMiddlewareSpecTest extends AbstractMiddlewareSpecTest {
    @Override
    WebApplicationType stack() {
        return WebApplicationType.REACTIVE;
    }
}
