package io.winlimit.spring.boot.support;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Lettuce's {@code disconnectedBehavior(REJECT_COMMANDS)} on the application's Redis client,
 * for the tests that stop the server on purpose under the long {@code CallDeadline}: Lettuce
 * otherwise keeps a command issued while it reconnects until the call's timeout, so each
 * request to a stopped server would wait the whole deadline; rejected, it fails at once.
 *
 * <p>Set on the client Boot made, before its first connection (the connection takes the
 * client's options when it opens): Boot's own customizer interface lives in another package
 * on Boot 3.5 than on 4.0, and these test sources compile against both.
 */
@Configuration(proxyBeanMethods = false)
public class RejectWhileDisconnected {

    @Bean
    static BeanPostProcessor rejectCommandsWhileDisconnected() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String name) {
                if (bean instanceof LettuceConnectionFactory factory && factory.getNativeClient() instanceof RedisClient client) {
                    client.setOptions(client.getOptions().mutate()
                            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
                }
                return bean;
            }
        };
    }
}
