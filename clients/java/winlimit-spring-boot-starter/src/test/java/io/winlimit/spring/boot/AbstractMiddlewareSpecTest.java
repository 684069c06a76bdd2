package io.winlimit.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import io.winlimit.spring.boot.app.SpecEndpoints;
import io.winlimit.spring.boot.app.TestApp;
import io.winlimit.spring.boot.support.Http;
import io.winlimit.spring.boot.support.RedisServer;
import io.winlimit.spring.boot.support.RejectWhileDisconnected;
import io.winlimit.spring.boot.support.Repo;
import io.winlimit.support.CallDeadline;

/**
 * Every case of clients/spec/middleware.json, on a real application over a real server: each
 * case's check and options become a policy of its own. A case this middleware cannot run
 * fails; none is skipped. A case that stops the server finds its calls refused at once
 * ({@link RejectWhileDisconnected}), not held for the deadline.
 */
abstract class AbstractMiddlewareSpecTest {
    private static final String[] FIELDS = {"RateLimit-Policy", "RateLimit", "Retry-After"};
    /** A case is run again while one of its setup requests fails; this many runs at most. */
    private static final int ATTEMPTS = 5;
    /** The fields count whole seconds from a case's first request: a run of a case with the
     * server up that lasts this long may show one second less than the case, and is rerun. */
    private static final Duration SECOND = Duration.ofMillis(999);

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(SpecEndpoints.class)
    static class SpecApp {}

    abstract WebApplicationType stack();

    @TestFactory
    Stream<DynamicTest> theSharedMiddlewareCases() throws Exception {
        JsonNode spec = new ObjectMapper().readTree(Repo.path("clients/spec/middleware.json").toFile());
        JsonNode cases = spec.get("cases");
        assertTrue(cases.size() <= SpecEndpoints.CASES, "middleware.json has more cases than SpecEndpoints has handlers");
        // A case without timeout_ms is not about one: its calls have the tests' deadline.
        List<String> properties = new ArrayList<>(List.of("winlimit.timeout=" + CallDeadline.TIMEOUT.toMillis() + "ms"));
        for (int i = 0; i < cases.size(); i++) {
            properties.addAll(policy("spec" + i, cases.get(i)));
        }
        for (int i = cases.size(); i < SpecEndpoints.CASES; i++) { // handlers no case uses yet
            properties.addAll(List.of("winlimit.policies.spec" + i + ".windows[0].window=1m",
                    "winlimit.policies.spec" + i + ".windows[0].limit=1"));
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            int n = i;
            tests.add(DynamicTest.dynamicTest(cases.get(i).get("name").asText(),
                    () -> run(n, cases.get(n), spec.get("bodies"), properties)));
        }
        return tests.stream();
    }

    /**
     * Runs the case until its setup requests (those before the checked one) all succeed, and,
     * with the server up, all its requests fit in a {@link #SECOND}: under a loaded machine a
     * setup request can overrun a case's short timeout_ms, fail, and log a line the case does
     * not expect, or the requests can span a second and the fields' reset show one less. Such a
     * run proves nothing, so the case starts again from scratch; what a run asserts stays exact.
     */
    private void run(int n, JsonNode c, JsonNode bodies, List<String> properties) throws Exception {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            if (attempt(n, c, bodies, properties)) {
                return;
            }
            System.out.println("winlimit spec case " + n + ": run " + attempt + " had a failed setup request or took a second; again");
        }
        fail("each of " + ATTEMPTS + " runs of the case had a failed setup request or took a second");
    }

    /** One run of the case, on an application and a server of its own (a stopped or paused
     * server, and the client's reconnects and breaker after it, never reach another run):
     * false, having asserted nothing, when a setup request failed or the run took a second. */
    private boolean attempt(int n, JsonNode c, JsonNode bodies, List<String> properties) throws Exception {
        Logger log = (Logger) LoggerFactory.getLogger("winlimit");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        RedisServer redis = RedisServer.start();
        ConfigurableApplicationContext app = null;
        try {
            app = TestApp.start(stack(), redis.port(), new Class<?>[] {SpecApp.class, RejectWhileDisconnected.class},
                    properties.toArray(String[]::new));
            Http http = new Http(Integer.parseInt(app.getEnvironment().getProperty("local.server.port")));
            log.addAppender(lines);
            int requests = c.get("requests").asInt();
            long started = System.nanoTime();
            for (int i = 0; i < requests - 1; i++) {
                http.get("/spec/" + n);
            }
            if (lines.list.stream().anyMatch(line -> line.getLevel() == Level.ERROR)) {
                return false; // a failed check logs an error: a setup request failed
            }
            HttpResponse<String> last = lastRequest(n, c, redis, http);
            if (c.get("redis").asText().equals("up") && System.nanoTime() - started >= SECOND.toNanos()) {
                return false;
            }
            check(c, bodies, last, lines.list, c.get("redis").asText().equals("up") ? redis : null);
            return true;
        } finally {
            log.detachAppender(lines);
            if (app != null) {
                app.close();
            }
            redis.close();
        }
    }

    /** The checked request, with the server as the case has it: up, stopped or paused (then
     * answered once the case's timeout has passed). */
    private static HttpResponse<String> lastRequest(int n, JsonNode c, RedisServer redis, Http http) {
        String mode = c.get("redis").asText();
        if (mode.equals("stopped")) {
            redis.close();
        } else if (mode.equals("paused")) {
            redis.command("CLIENT", "PAUSE", "20000", "WRITE");
        }
        long started = System.nanoTime();
        HttpResponse<String> last = http.get("/spec/" + n);
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        if (mode.equals("paused")) {
            redis.command("CLIENT", "UNPAUSE");
            long timeout = c.get("options").path("timeout_ms").asLong(CallDeadline.TIMEOUT.toMillis());
            assertTrue(tookMs >= timeout, "the answer came after " + tookMs + " ms, before the timeout");
        }
        return last;
    }

    private static void check(JsonNode c, JsonNode bodies, HttpResponse<String> last, List<ILoggingEvent> lines,
                              RedisServer redis) {
        assertEquals(c.get("status").asInt(), last.statusCode(), last.body());
        JsonNode body = c.get("body");
        if (!body.isNull()) {
            assertEquals(body.asText().equals("app") ? "app" : bodies.get(body.asText()).asText(), last.body());
        }
        Map<String, String> want = new TreeMap<>();
        c.get("fields").fields().forEachRemaining(e -> want.put(e.getKey(), e.getValue().asText()));
        Map<String, String> got = new TreeMap<>();
        for (String name : FIELDS) {
            last.headers().firstValue(name).ifPresent(v -> got.put(name, v));
        }
        assertEquals(want, got);
        JsonNode log = c.get("log");
        if (log.isNull()) {
            assertEquals(List.of(), lines.stream().map(ILoggingEvent::getFormattedMessage).toList());
        } else {
            assertEquals(1, lines.size(), lines.stream().map(ILoggingEvent::getFormattedMessage).toList().toString());
            Level level = log.get("level").asText().equals("warn") ? Level.WARN : Level.ERROR;
            assertEquals(level, lines.get(0).getLevel());
            String line = lines.get(0).getFormattedMessage();
            assertTrue(line.startsWith(log.get("starts").asText()), line);
        }
        if (c.has("redis_keys") && redis != null) {
            List<String> keys = new ArrayList<>();
            c.get("redis_keys").forEach(k -> keys.add(k.asText()));
            String count = redis.command("DBSIZE");
            assertEquals(":" + keys.size(), count);
            for (String key : keys) {
                assertEquals(":1", redis.command("EXISTS", key));
            }
        }
    }

    /** The properties of policy {@code name} for a case: its check and its options. */
    private static List<String> policy(String name, JsonNode c) {
        String p = "winlimit.policies." + name + ".";
        List<String> out = new ArrayList<>();
        JsonNode check = c.get("check");
        if (check.isTextual()) {
            assertEquals("raises", check.asText());
            // A check that fails with an error that is not Redis's: here, the key's expression.
            out.add(p + "key=T(java.lang.Integer).parseInt('not a number')");
            check = new ObjectMapper().createObjectNode().put("method", "fixed")
                    .set("args", new ObjectMapper().createArrayNode().add("k").add(60000).add(1));
        }
        JsonNode args = check.get("args");
        out.add(p + "algorithm=" + check.get("method").asText());
        if (args.get(1).isArray()) {
            for (int i = 0; i < args.get(1).size(); i++) {
                out.add(p + "windows[" + i + "].window=" + args.get(1).get(i).get(0).asLong() + "ms");
                out.add(p + "windows[" + i + "].limit=" + args.get(1).get(i).get(1).asLong());
            }
        } else {
            out.add(p + "windows[0].window=" + args.get(1).asLong() + "ms");
            out.add(p + "windows[0].limit=" + args.get(2).asLong());
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = check.path("options").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> o = it.next();
            switch (o.getKey()) {
                case "cost", "burst", "align", "name" -> out.add(p + o.getKey() + "=" + o.getValue().asText());
                case "bucket" -> out.add(p + "bucket=" + o.getValue().asLong() + "ms");
                default -> throw new AssertionError("a check option the starter's policies do not have: " + o.getKey());
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = c.get("options").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> o = it.next();
            switch (o.getKey()) {
                case "fail_open" -> out.add(p + "fail-open=" + o.getValue().asBoolean());
                case "shadow" -> out.add(p + "shadow=" + o.getValue().asBoolean());
                case "timeout_ms" -> out.add(p + "timeout=" + o.getValue().asLong() + "ms");
                case "key" -> {
                    assertTrue(o.getValue().isNull(), "a key option other than null");
                    out.add(p + "key=null");
                }
                default -> throw new AssertionError("a middleware option the starter's policies do not have: " + o.getKey());
            }
        }
        return out;
    }
}
