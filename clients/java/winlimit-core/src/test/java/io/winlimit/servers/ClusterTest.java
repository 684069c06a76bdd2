package io.winlimit.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.winlimit.LimiterConfig;
import io.winlimit.model.Backend;
import io.winlimit.model.Decision;
import io.winlimit.support.CallDeadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A real 3-primary cluster, with the module and on Functions: each key's call goes to its node,
 * and the backend is detected (and the library loaded) on every node by itself. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterTest {
    private RedisCluster withModule;
    private RedisCluster onFunctions;
    private final Adapters adapters = new Adapters();

    @BeforeAll
    void startClusters() throws Exception {
        withModule = new RedisCluster("redis-7.0", true);
        onFunctions = new RedisCluster("redis-7.0", false);
    }

    @AfterAll
    void stopClusters() {
        adapters.close();
        if (withModule != null) {
            withModule.close();
        }
        if (onFunctions != null) {
            onFunctions.close();
        }
    }

    static Stream<Arguments> everyEditionAndAdapter() {
        List<Arguments> out = new ArrayList<>();
        for (boolean module : new boolean[] {true, false}) {
            for (String adapter : Adapters.NAMES) {
                out.add(Arguments.of(module ? "module" : "functions", adapter));
            }
        }
        return out.stream();
    }

    /** Keys spread so that every node serves some: one per slot range of each node. */
    private static List<String> keysOnEveryNode(RedisCluster cluster, String prefix) throws Exception {
        Set<Long> seen = new HashSet<>();
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < 3; i++) {
            String key = prefix + ":" + i;
            Object slot = cluster.nodes.get(0).call("CLUSTER", "KEYSLOT", key);
            long node = nodeOf(cluster, (Long) slot);
            if (seen.add(node)) {
                keys.add(key);
            }
        }
        return keys;
    }

    private static long nodeOf(RedisCluster cluster, long slot) throws Exception {
        for (Object range : (List<?>) cluster.nodes.get(0).call("CLUSTER", "SLOTS")) {
            List<?> r = (List<?>) range;
            if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
                return (Long) ((List<?>) r.get(2)).get(1);
            }
        }
        throw new IllegalStateException("no node serves slot " + slot);
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("everyEditionAndAdapter")
    void everyNodeDecidesForItsKeys(String edition, String adapter) throws Exception {
        RedisCluster cluster = edition.equals("module") ? withModule : onFunctions;
        Subject s = adapters.cluster(adapter, cluster.port(), CallDeadline.config());
        Backend expected = edition.equals("module") ? Backend.MODULE : Backend.FUNCTIONS;
        for (String key : keysOnEveryNode(cluster, "cluster:" + adapter + ":" + System.nanoTime())) {
            for (long left = 1; left >= 0; left--) {
                Decision d = s.fixed(key, Duration.ofMinutes(1), 2);
                assertTrue(d.allowed());
                assertEquals(left, d.remaining());
                assertEquals(expected, d.backend());
            }
            assertFalse(s.fixed(key, Duration.ofMinutes(1), 2).allowed());
            assertTrue(s.reset(key));
            assertEquals(0L, ownerOf(cluster, key).call("EXISTS", key));
        }
        if (!edition.equals("module")) {
            for (RedisServer node : cluster.nodes) {
                assertTrue(String.valueOf(node.call("FUNCTION", "LIST", "LIBRARYNAME", "winlimit")).contains("winlimit"),
                        "the library is loaded on node " + node.port());
            }
        }
    }

    @org.junit.jupiter.api.Test
    void aPausedNodeFallsBackAloneWhileTheOthersDecideInRedis() throws Exception {
        List<String> keys = keysOnEveryNode(withModule, "breaker:" + System.nanoTime());
        Subject s = adapters.cluster("lettuce", withModule.port(), LimiterConfig.defaults()
                .timeout(Duration.ofMillis(500)).fallback(new io.winlimit.memory.MemoryLimiter()));
        for (String key : keys) {
            assertEquals(Backend.MODULE, s.fixed(key, Duration.ofMinutes(1), 100).backend());
        }
        RedisServer paused = ownerOf(withModule, keys.get(0));
        paused.pause();
        try {
            for (int i = 0; i < 3; i++) {
                assertEquals(Backend.MEMORY, s.fixed(keys.get(0), Duration.ofMinutes(1), 100).backend());
            }
            // Open for that node only: its keys are decided here without waiting; the others in Redis.
            assertEquals(Backend.MEMORY, s.fixed(keys.get(0), Duration.ofMinutes(1), 100).backend());
            for (String key : keys.subList(1, keys.size())) {
                Decision d = s.fixed(key, Duration.ofMinutes(1), 100);
                assertEquals(Backend.MODULE, d.backend());
                assertEquals(98, d.remaining());
            }
        } finally {
            paused.resume();
        }
    }

    private static RedisServer ownerOf(RedisCluster cluster, String key) throws Exception {
        long port = nodeOf(cluster, (Long) cluster.nodes.get(0).call("CLUSTER", "KEYSLOT", key));
        return cluster.nodes.stream().filter(n -> n.port() == port).findFirst().orElseThrow();
    }
}
