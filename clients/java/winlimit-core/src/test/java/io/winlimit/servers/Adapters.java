package io.winlimit.servers;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.winlimit.LimiterConfig;
import io.winlimit.jedis.WinlimitJedis;
import io.winlimit.lettuce.WinlimitLettuce;
import io.winlimit.springdata.WinlimitSpringData;
import java.util.ArrayList;
import java.util.List;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;

/** Every adapter and view, made over a server or a cluster as an application would make its
 * client; each keeps what it opened, closed by {@link #close}. */
public final class Adapters implements AutoCloseable {
    /** The adapters and views of the contract. */
    public static final List<String> NAMES = List.of("lettuce", "lettuce-async", "lettuce-reactive", "jedis",
            "spring-lettuce", "spring-jedis", "spring-template", "spring-reactive");

    private final List<AutoCloseable> opened = new ArrayList<>();

    public Subject standalone(String adapter, int port, LimiterConfig config) {
        return switch (adapter) {
            case "lettuce" -> Subject.of(WinlimitLettuce.limiter(lettuce(port), config));
            case "lettuce-async" -> Subject.of(WinlimitLettuce.asyncLimiter(lettuce(port), config));
            case "lettuce-reactive" -> Subject.of(WinlimitLettuce.reactiveLimiter(lettuce(port), config));
            case "jedis" -> Subject.of(WinlimitJedis.limiter(keep(new JedisPooled("127.0.0.1", port)), config));
            case "spring-lettuce" -> Subject.of(WinlimitSpringData.limiter(springLettuce(port), config));
            case "spring-jedis" -> Subject.of(WinlimitSpringData.limiter(springJedis(port), config));
            case "spring-template" -> Subject.of(WinlimitSpringData.limiter(new StringRedisTemplate(springLettuce(port)), config));
            case "spring-reactive" -> Subject.of(WinlimitSpringData.reactiveLimiter(springLettuce(port), config));
            default -> throw new IllegalArgumentException("no adapter " + adapter);
        };
    }

    public Subject cluster(String adapter, int port, LimiterConfig config) {
        return switch (adapter) {
            case "lettuce" -> Subject.of(WinlimitLettuce.limiter(lettuceCluster(port), config));
            case "lettuce-async" -> Subject.of(WinlimitLettuce.asyncLimiter(lettuceCluster(port), config));
            case "lettuce-reactive" -> Subject.of(WinlimitLettuce.reactiveLimiter(lettuceCluster(port), config));
            case "jedis" -> Subject.of(WinlimitJedis.limiter(keep(new JedisCluster(new HostAndPort("127.0.0.1", port))), config));
            case "spring-lettuce" -> Subject.of(WinlimitSpringData.limiter(springLettuceCluster(port), config));
            case "spring-jedis" -> Subject.of(WinlimitSpringData.limiter(springJedisCluster(port), config));
            case "spring-template" -> Subject.of(WinlimitSpringData.limiter(new StringRedisTemplate(springLettuceCluster(port)), config));
            case "spring-reactive" -> Subject.of(WinlimitSpringData.reactiveLimiter(springLettuceCluster(port), config));
            default -> throw new IllegalArgumentException("no adapter " + adapter);
        };
    }

    public StatefulRedisConnection<String, String> lettuce(int port) {
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        opened.add(client::shutdown);
        return keep(client.connect(StringCodec.UTF8));
    }

    StatefulRedisClusterConnection<String, String> lettuceCluster(int port) {
        RedisClusterClient client = RedisClusterClient.create(RedisURI.create("127.0.0.1", port));
        opened.add(client::shutdown);
        return keep(client.connect(StringCodec.UTF8));
    }

    private LettuceConnectionFactory springLettuce(int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        factory.afterPropertiesSet();
        factory.start();
        opened.add(factory::destroy);
        return factory;
    }

    private LettuceConnectionFactory springLettuceCluster(int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(List.of("127.0.0.1:" + port)));
        factory.afterPropertiesSet();
        factory.start();
        opened.add(factory::destroy);
        return factory;
    }

    private JedisConnectionFactory springJedis(int port) {
        JedisConnectionFactory factory = new JedisConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        factory.afterPropertiesSet();
        factory.start();
        opened.add(factory::destroy);
        return factory;
    }

    private JedisConnectionFactory springJedisCluster(int port) {
        JedisConnectionFactory factory = new JedisConnectionFactory(new RedisClusterConfiguration(List.of("127.0.0.1:" + port)));
        factory.afterPropertiesSet();
        factory.start();
        opened.add(factory::destroy);
        return factory;
    }

    private <T extends AutoCloseable> T keep(T resource) {
        opened.add(resource);
        return resource;
    }

    @Override
    public void close() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception ignored) {
                // closing what the test opened; the servers stop anyway
            }
        }
        opened.clear();
    }
}
