package io.winlimit.spring.cloud.gateway;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The gateway application of the tests (routes in application*.yml) and the backend it routes to. */
final class GatewayApps {
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class GatewayApp {}

    private GatewayApps() {}

    /** A backend on a free loopback port, answering "backend" to everything. */
    static HttpServer backend() throws IOException {
        HttpServer backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        backend.createContext("/", exchange -> {
            byte[] body = "backend".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        backend.start();
        return backend;
    }

    /** The gateway on a free loopback port, over Redis at {@code redisPort}. */
    static ConfigurableApplicationContext start(int redisPort, int backendPort, String... more) {
        return start(new Class<?>[] {GatewayApp.class}, redisPort, backendPort, more);
    }

    /**
     * The gateway of {@code sources} (GatewayApp and more) on a free loopback port. Its calls to
     * the backend time out after 40 s (Spring Cloud Gateway has no default): a backend that never
     * answers is then a 504 and a log line, told apart from a limiter that never decides, which
     * the test client's thread dump at 25 s shows.
     */
    static ConfigurableApplicationContext start(Class<?>[] sources, int redisPort, int backendPort, String... more) {
        return new SpringApplicationBuilder(sources).web(WebApplicationType.REACTIVE)
                .properties("server.port=0", "server.address=127.0.0.1", "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redisPort, "backend.port=" + backendPort,
                        "spring.main.banner-mode=off",
                        "spring.cloud.gateway.server.webflux.httpclient.response-timeout=40s")
                .properties(more).run();
    }

    /** Every message of an error and its causes, one a line. */
    static String chain(Throwable error) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = error; t != null; t = t.getCause()) {
            out.append(t).append('\n');
        }
        return out.toString();
    }
}
