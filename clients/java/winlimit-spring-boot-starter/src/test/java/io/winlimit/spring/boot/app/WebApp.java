package io.winlimit.spring.boot.app;

import io.winlimit.spring.boot.support.Http;
import io.winlimit.spring.boot.support.RedisServer;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A test application running over a redis-server of its own, with a real HTTP client on its
 * port: what a web test starts once and closes at the end (the application first, then the
 * server, by its PID).
 *
 * @param redis the server, with the module
 * @param app the application, on a free loopback port
 * @param http a client of the application's port
 */
public record WebApp(RedisServer redis, ConfigurableApplicationContext app, Http http) implements AutoCloseable {

    /** Starts a server, then {@code sources} over it (see {@link TestApp#start}). */
    public static WebApp start(WebApplicationType type, Class<?>[] sources, String... properties) {
        RedisServer redis = RedisServer.start();
        try {
            ConfigurableApplicationContext app = TestApp.start(type, redis.port(), sources, properties);
            return new WebApp(redis, app, new Http(Integer.parseInt(app.getEnvironment().getProperty("local.server.port"))));
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    @Override
    public void close() {
        app.close();
        redis.close();
    }
}
