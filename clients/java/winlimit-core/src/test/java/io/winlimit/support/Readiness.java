package io.winlimit.support;

import java.time.Duration;

/**
 * How long the Java tests wait for a server, a cluster or an application to become ready: one
 * generous deadline for every such wait, in every Java test tree (the starter's and the
 * gateway's tests take it from this module's test jar). A readiness wait is not a claim about
 * speed: under a loaded CI machine a start takes many times its usual time. What a test
 * asserts about a decision, a count or a time stays exact.
 */
public final class Readiness {
    /** The deadline of every readiness wait. */
    public static final Duration DEADLINE = Duration.ofSeconds(60);

    private Readiness() {}
}
