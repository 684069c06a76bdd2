package io.winlimit.example.mvc;

import io.winlimit.spring.boot.annotation.RateLimit;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Spring Boot MVC: 3 SMS per hour per user, the "sms" policy of application.yml on a sliding
 * hour. The fourth POST /sms/{userName} within an hour gets a 429 with Retry-After.
 */
@SpringBootApplication
@RestController
public class SmsApplication {

    public static void main(String[] args) {
        SpringApplication.run(SmsApplication.class, args);
    }

    // --8<-- [start:limit]
    @RateLimit("sms")
    @PostMapping("/sms/{userName}")
    public String sms(@PathVariable String userName) {
        return "sent to " + userName;
    }
    // --8<-- [end:limit]
}
