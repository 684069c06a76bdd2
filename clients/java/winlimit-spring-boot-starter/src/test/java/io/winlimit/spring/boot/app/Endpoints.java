package io.winlimit.spring.boot.app;

import java.security.Principal;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.winlimit.spring.boot.annotation.RateLimit;

/** The test application's handlers: the same class serves Spring MVC and WebFlux. */
@RestController
public class Endpoints {

    /** The seeds' scenario: 3 SMS per hour per user. */
    @RateLimit("sms")
    @PostMapping("/sms/{userName}")
    public String sms(@PathVariable String userName) {
        return "sent to " + userName;
    }

    /** Only failed logins count: a success gives its unit back. */
    @RateLimit("login")
    @PostMapping("/login")
    public ResponseEntity<String> login(@RequestParam String user, @RequestParam String password) {
        return "right".equals(password) ? ResponseEntity.ok("welcome") : ResponseEntity.status(401).body("no");
    }

    @RateLimit("api")
    @GetMapping("/api")
    public String api() {
        return "app";
    }

    @RateLimit("hourly")
    @GetMapping("/hourly")
    public String hourly() {
        return "app";
    }

    @RateLimit("draft7")
    @GetMapping("/draft7")
    public String draft7() {
        return "app";
    }

    @RateLimit("legacy")
    @GetMapping("/legacy")
    public String legacy() {
        return "app";
    }

    @RateLimit("quiet")
    @GetMapping("/quiet")
    public String quiet() {
        return "app";
    }

    @RateLimit("gcra")
    @GetMapping("/gcra")
    public String gcra() {
        return "app";
    }

    @RateLimit("shadow")
    @GetMapping("/shadow")
    public String shadow() {
        return "app";
    }

    @RateLimit("open")
    @GetMapping("/open")
    public String open() {
        return "app";
    }

    @RateLimit("closed")
    @GetMapping("/closed")
    public String closed() {
        return "app";
    }

    /** The name of the thread the handler runs on. */
    @RateLimit("api")
    @GetMapping("/thread")
    public String thread() {
        return Thread.currentThread().getName();
    }

    /** An order as the client sends it, in the request body. */
    public record Order(String user, int items) {}

    /** The key is a field of the request body, as Spring read it. */
    @RateLimit(value = "per-user", key = "'order:' + #order.user")
    @PostMapping("/orders")
    public String order(@RequestBody Order order) {
        return order.items() + " for " + order.user();
    }

    /** The key is the authenticated user (see {@link PrincipalFromHeader}). */
    @RateLimit(value = "per-user", key = "'me:' + #principal.name")
    @GetMapping("/me")
    public String me(Principal principal) {
        return principal.getName();
    }

    /** The key is the path variable as the handler gets it: a long, converted. */
    @RateLimit(value = "per-user", key = "'item:' + (#id + 1)")
    @GetMapping("/items/{id}")
    public String item(@PathVariable long id) {
        return "item " + id;
    }

    /** Two limits: each is decided and announced; the second, narrower one rejects first. */
    @RateLimit("wide")
    @RateLimit("narrow")
    @GetMapping("/stacked")
    public String stacked() {
        return "app";
    }

    @GetMapping("/free")
    public String free() {
        return "app";
    }
}
