package io.winlimit.consumer;

import io.winlimit.model.Decision;
import io.winlimit.spring.boot.RateLimits;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** One call through the starter's auto-configured policies, on the Redis of spring.data.redis.*. */
@SpringBootApplication
public class ConsumerApp {
    public static void main(String[] args) {
        try (ConfigurableApplicationContext context = SpringApplication.run(ConsumerApp.class, args)) {
            Decision decision = context.getBean(RateLimits.class).check("sms", "+4915112345678");
            System.out.println("winlimit consumer: allowed=" + decision.allowed() + " remaining=" + decision.remaining()
                    + " backend=" + decision.backend() + " " + decision.headers());
        }
    }
}
