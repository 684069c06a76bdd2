package io.winlimit;

import io.winlimit.model.Args;
import io.winlimit.model.BackendChoice;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How a limiter is set up. Immutable: each {@code with} method returns a copy.
 *
 * <ul>
 *   <li>{@code name}: the policy name in the header fields ("winlimit"; with several windows
 *       "winlimit-60s" and so on); each call may override it;</li>
 *   <li>{@code backend}: which edition of winlimit answers ({@link BackendChoice#AUTO});</li>
 *   <li>{@code cacheRejections}: answer a command line that was just rejected from memory until
 *       its retryAfter ends, at most {@code cacheSize} of them; wrong in one case: a key reset
 *       by another process is still refused until the entry ends;</li>
 *   <li>{@code block}: the BLOCK of every recording call that gives none of its own;</li>
 *   <li>{@code timeout}: how long a sync call waits for Redis (1 s); then it fails with
 *       {@link io.winlimit.model.RedisTimeoutException} and the command, if still queued, is cancelled;</li>
 *   <li>{@code breaker}: the circuit breaker per server (per cluster node), on by default;</li>
 *   <li>{@code fallback}: what decides while Redis fails or the breaker is open.</li>
 * </ul>
 */
public final class LimiterConfig {
    /** The defaults of every winlimit client (clients/spec/constants.json). */
    public static final String DEFAULT_NAME = "winlimit";
    public static final int DEFAULT_CACHE_SIZE = 10_000;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(1000);

    private String name = DEFAULT_NAME;
    private BackendChoice backend = BackendChoice.AUTO;
    private boolean cacheRejections;
    private int cacheSize = DEFAULT_CACHE_SIZE;
    private Long blockMs;
    private Duration timeout = DEFAULT_TIMEOUT;
    private io.winlimit.breaker.BreakerOptions breaker = io.winlimit.breaker.BreakerOptions.defaults();
    private Fallback fallback;
    private java.util.function.DoubleSupplier breakerClock = () -> System.nanoTime() / 1e6;

    private LimiterConfig() {}

    private LimiterConfig(LimiterConfig from) {
        name = from.name;
        backend = from.backend;
        cacheRejections = from.cacheRejections;
        cacheSize = from.cacheSize;
        blockMs = from.blockMs;
        timeout = from.timeout;
        breaker = from.breaker;
        fallback = from.fallback;
        breakerClock = from.breakerClock;
    }

    public static LimiterConfig defaults() {
        return new LimiterConfig();
    }

    public LimiterConfig name(String name) {
        LimiterConfig out = new LimiterConfig(this);
        out.name = io.winlimit.internal.protocol.Commands.checkName(name);
        return out;
    }

    public LimiterConfig backend(BackendChoice backend) {
        if (backend == null) {
            throw new IllegalArgumentException("backend must not be null");
        }
        LimiterConfig out = new LimiterConfig(this);
        out.backend = backend;
        return out;
    }

    public LimiterConfig cacheRejections(boolean cacheRejections) {
        LimiterConfig out = new LimiterConfig(this);
        out.cacheRejections = cacheRejections;
        return out;
    }

    public LimiterConfig cacheSize(int cacheSize) {
        if (cacheSize < 1) {
            throw new IllegalArgumentException("cacheSize must be at least 1, not " + cacheSize);
        }
        LimiterConfig out = new LimiterConfig(this);
        out.cacheSize = cacheSize;
        return out;
    }

    public LimiterConfig block(Duration block) {
        long ms = Args.millis("block", block);
        if (ms < 1) {
            throw new IllegalArgumentException("block must be at least 1 ms, not " + block);
        }
        LimiterConfig out = new LimiterConfig(this);
        out.blockMs = ms;
        return out;
    }

    public LimiterConfig timeout(Duration timeout) {
        long ms = Args.millis("timeout", timeout);
        if (ms < 1) {
            throw new IllegalArgumentException("timeout must be at least 1 ms, not " + timeout);
        }
        LimiterConfig out = new LimiterConfig(this);
        out.timeout = timeout;
        return out;
    }

    /** The circuit breaker's options (on by default; {@code BreakerOptions.disabled()} turns it off). */
    public LimiterConfig breaker(io.winlimit.breaker.BreakerOptions breaker) {
        if (breaker == null) {
            throw new IllegalArgumentException("breaker must not be null (BreakerOptions.disabled() turns it off)");
        }
        LimiterConfig out = new LimiterConfig(this);
        out.breaker = breaker;
        return out;
    }

    /** What decides while Redis fails or the breaker is open, e.g. a MemoryLimiter; without one
     * such a call fails (at once, unsent, while the breaker is open). */
    public LimiterConfig fallback(Fallback fallback) {
        LimiterConfig out = new LimiterConfig(this);
        out.fallback = fallback;
        return out;
    }

    /** The breaker's clock in ms (this process's monotonic clock); tests pass their own. */
    public LimiterConfig breakerClock(java.util.function.DoubleSupplier clock) {
        LimiterConfig out = new LimiterConfig(this);
        out.breakerClock = clock;
        return out;
    }

    public java.util.function.DoubleSupplier breakerClock() {
        return breakerClock;
    }

    public io.winlimit.breaker.BreakerOptions breaker() {
        return breaker;
    }

    public Optional<Fallback> fallback() {
        return Optional.ofNullable(fallback);
    }

    public String name() {
        return name;
    }

    public BackendChoice backend() {
        return backend;
    }

    public boolean cacheRejections() {
        return cacheRejections;
    }

    public int cacheSize() {
        return cacheSize;
    }

    public OptionalLong blockMs() {
        return blockMs == null ? OptionalLong.empty() : OptionalLong.of(blockMs);
    }

    public Duration timeout() {
        return timeout;
    }

}
