package io.winlimit.servers;

import io.winlimit.support.Readiness;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real 3-primary cluster of {@link RedisServer}s, joined with the cli's --cluster create. */
public final class RedisCluster implements AutoCloseable {
    public final List<RedisServer> nodes = new ArrayList<>();

    public RedisCluster(String name, boolean module) throws IOException, InterruptedException {
        try {
            for (int i = 0; i < 3; i++) {
                // Each node's bus on a port of its own (the default, port + 10000, may pass 65535). A
                // node paused by a test (or starved by a loaded machine) is not failed by the others
                // before the readiness deadline: a failed node would take the cluster down.
                nodes.add(new RedisServer(name, module, "--cluster-enabled", "yes", "--cluster-port",
                        Integer.toString(RedisServer.freePort()), "--cluster-node-timeout", Long.toString(Readiness.DEADLINE.toMillis())));
            }
            List<String> cmd = new ArrayList<>(List.of(RedisServer.bin(name, "cli").toString(), "--cluster", "create"));
            nodes.forEach(n -> cmd.add("127.0.0.1:" + n.port()));
            cmd.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
            Process create = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(create.getInputStream().readAllBytes());
            if (!create.waitFor(Readiness.DEADLINE.toSeconds(), TimeUnit.SECONDS) || create.exitValue() != 0) {
                throw new IOException("--cluster create failed: " + output);
            }
            waitReady();
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Until every node says cluster_state:ok and all agree on the slots. */
    private void waitReady() throws IOException {
        long deadline = System.nanoTime() + Readiness.DEADLINE.toNanos();
        while (true) {
            boolean ok = true;
            String first = null;
            for (RedisServer n : nodes) {
                ok &= String.valueOf(n.call("CLUSTER", "INFO")).contains("cluster_state:ok");
                String slots = String.valueOf(n.call("CLUSTER", "SLOTS"));
                ok &= first == null || first.equals(slots);
                first = first == null ? slots : first;
            }
            if (ok) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("the cluster did not become ready");
            }
            RedisServer.sleep(50);
        }
    }

    public int port() {
        return nodes.get(0).port();
    }

    @Override
    public void close() {
        for (int i = nodes.size() - 1; i >= 0; i--) {
            nodes.get(i).close();
        }
    }
}
