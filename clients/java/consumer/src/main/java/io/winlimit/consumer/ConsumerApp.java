package io.winlimit.consumer;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.winlimit.model.Decision;
import io.winlimit.spring.boot.RateLimits;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One call through the starter's auto-configured policies, on the Redis of spring.data.redis.*;
 * then the calls clients/java/README.md shows (ReadmeCalls), on the same server.
 */
@SpringBootApplication
public class ConsumerApp {
    public static void main(String[] args) {
        try (ConfigurableApplicationContext context = SpringApplication.run(ConsumerApp.class, args)) {
            Decision decision = context.getBean(RateLimits.class).check("sms", "+4915112345678");
            System.out.println("winlimit consumer: allowed=" + decision.allowed() + " remaining=" + decision.remaining()
                    + " backend=" + decision.backend() + " " + decision.headers());

            Environment env = context.getEnvironment();
            RedisClient client = RedisClient.create(RedisURI.create(env.getProperty("spring.data.redis.host", "127.0.0.1"),
                    env.getProperty("spring.data.redis.port", Integer.class, 6379)));
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                boolean viaTemplate = ReadmeCalls.springData(context.getBean(StringRedisTemplate.class), "ann");
                Decision viaLettuce = ReadmeCalls.lettuce(connection, "ann");
                Decision configured = ReadmeCalls.configured(connection);
                System.out.println("winlimit readme: template=" + viaTemplate + " lettuce=" + viaLettuce.remaining()
                        + " configured=" + configured.policies().get(0).name() + ":" + configured.remaining());
            } finally {
                client.shutdown();
            }
        }
    }
}
