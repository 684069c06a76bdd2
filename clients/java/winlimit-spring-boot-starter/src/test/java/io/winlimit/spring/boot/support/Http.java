package io.winlimit.spring.boot.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import io.winlimit.support.Readiness;

/**
 * A real HTTP client on the test application's loopback port. A request may take up to
 * {@link Readiness#DEADLINE}: the first ones to a freshly started application warm it up, which
 * on a loaded machine takes many times its usual time (the limiter's own calls have
 * {@code CallDeadline}, shorter); what a test asserts about the answer stays exact.
 */
public final class Http {
    // HTTP/1.1, as the apps serve it: the JDK client's default (HTTP/2) asks every plain-HTTP
    // request to upgrade to h2c, which no test is about.
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Readiness.DEADLINE).build();
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

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return client.send(request.timeout(Readiness.DEADLINE).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
