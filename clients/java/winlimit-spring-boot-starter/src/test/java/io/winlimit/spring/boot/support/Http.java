package io.winlimit.spring.boot.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.winlimit.support.Readiness;

/**
 * A real HTTP client on the test application's loopback port. A request may take up to
 * {@link Readiness#DEADLINE}: the first ones to a freshly started application warm it up, which
 * on a loaded machine takes many times its usual time (the limiter's own calls have
 * {@code CallDeadline}, shorter); what a test asserts about the answer stays exact. A request
 * still unanswered after {@link #SLOW} takes a thread dump of this JVM (the application and its
 * backend run in it), which the failure carries if no answer comes by the deadline, and which is
 * printed if one comes late.
 */
public final class Http {
    // HTTP/1.1, as the apps serve it: the JDK client's default (HTTP/2) asks every plain-HTTP
    // request to upgrade to h2c, which no test is about.
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Readiness.DEADLINE).build();
    private static final Duration SLOW = Duration.ofSeconds(25);
    private final String base;

    public Http(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    public HttpResponse<String> post(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    /** A POST of {@code json}, as application/json. */
    public HttpResponse<String> postJson(String path, String json) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** A GET with one request header. */
    public HttpResponse<String> get(String path, String header, String value) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header(header, value).GET());
    }

    private HttpResponse<String> send(HttpRequest.Builder builder) {
        HttpRequest request = builder.timeout(Readiness.DEADLINE).build();
        String what = request.method() + " " + request.uri();
        CompletableFuture<HttpResponse<String>> answer = client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        String dump = null;
        try {
            try {
                return answer.get(SLOW.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException slow) {
                dump = ThreadDump.now();
                HttpResponse<String> late = answer.get();
                System.err.println(what + " answered " + late.statusCode() + " after more than " + SLOW.toSeconds()
                        + " s; the threads then:\n" + dump);
                return late;
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException(dump == null ? what + " failed"
                    : what + " had no answer; the threads after " + SLOW.toSeconds() + " s:\n" + dump, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
