package io.winlimit.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;

/** The starter on WebFlux (served by Tomcat here, the web starter being on the test classpath). */
class WebFluxTest extends AbstractWebTest {
    @Override
    WebApplicationType stack() {
        return WebApplicationType.REACTIVE;
    }

    @Test
    void theHandlerRunsNeitherOnLettucesIoThreadNorOnABlockingScheduler() {
        HttpResponse<String> answered = http.get("/thread");
        assertEquals(200, answered.statusCode());
        String thread = answered.body();
        assertFalse(thread.startsWith("lettuce-") || thread.startsWith("boundedElastic-"), "the handler ran on " + thread);
    }
}
