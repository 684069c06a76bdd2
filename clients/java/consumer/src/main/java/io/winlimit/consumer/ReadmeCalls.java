package io.winlimit.consumer;

import io.winlimit.Limiter;
import io.winlimit.lettuce.WinlimitLettuce;
import io.winlimit.model.Decision;
import java.time.Duration;

import io.lettuce.core.api.StatefulRedisConnection;
import io.winlimit.LimiterConfig;
import io.winlimit.memory.MemoryLimiter;
import io.winlimit.springdata.WinlimitSpringData;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The calls clients/java/README.md shows, word for word: compiled and run by ConsumerApp (check.sh). */
final class ReadmeCalls {
    private ReadmeCalls() {
    }

    /** A decision in one call, on a Lettuce connection. */
    static Decision lettuce(StatefulRedisConnection<String, String> connection, String user) {
        Limiter limiter = WinlimitLettuce.limiter(connection);        // a StatefulRedisConnection
        Decision d = limiter.slide("sms:" + user, Duration.ofHours(1), 3);
        if (!d.allowed()) {
            // 429: d.headers() has RateLimit-Policy, RateLimit and Retry-After
        }
        return d;
    }

    /** The INCR and EXPIRE of a StringRedisTemplate, as one call over its connection factory. */
    static boolean springData(StringRedisTemplate stringRedisTemplate, String user) {
        Limiter limiter = WinlimitSpringData.limiter(stringRedisTemplate);
        boolean allowed = limiter.slide("sms:" + user, Duration.ofHours(1), 3).allowed();
        return allowed;
    }

    /** A limiter's settings: its name, timeout and fallback. */
    static Decision configured(StatefulRedisConnection<String, String> connection) {
        Limiter limiter = WinlimitLettuce.limiter(connection, LimiterConfig.defaults()
                .name("api").timeout(Duration.ofMillis(300)).fallback(new MemoryLimiter()));
        return limiter.slide("api:42", Duration.ofMinutes(1), 100);
    }
}
