package io.winlimit;

import io.winlimit.internal.text.Args;
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
    /** The policy name of the header fields unless one is set: {@value}. */
    public static final String DEFAULT_NAME = "winlimit";
    /** How many rejected command lines the rejection cache holds unless set: {@value}. */
    public static final int DEFAULT_CACHE_SIZE = 10_000;
    /** How long a call waits for Redis unless set: 1 s. */
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

    /**
     * The defaults of every winlimit client: name "winlimit", backend AUTO, no rejection cache,
     * no BLOCK, a 1 s timeout, the breaker on, no fallback.
     *
     * @return a new configuration
     */
    public static LimiterConfig defaults() {
        return new LimiterConfig();
    }

    /**
     * The policy name of the header fields; a call's own NAME overrides it.
     *
     * @param name printable ASCII (a Structured Field String)
     * @return a copy with this setting; this configuration is unchanged
     * @throws IllegalArgumentException if the name is null or has another character
     */
    public LimiterConfig name(String name) {
        LimiterConfig out = new LimiterConfig(this);
        out.name = io.winlimit.internal.protocol.Commands.checkName(name);
        return out;
    }

    /**
     * Which edition of winlimit answers: AUTO finds out per server, the others pin one.
     *
     * @param backend the edition
     * @return a copy with this setting; this configuration is unchanged
     * @throws IllegalArgumentException if {@code backend} is null
     */
    public LimiterConfig backend(BackendChoice backend) {
        if (backend == null) {
            throw new IllegalArgumentException("backend must not be null");
        }
        LimiterConfig out = new LimiterConfig(this);
        out.backend = backend;
        return out;
    }

    /**
     * Whether a command line just rejected is answered from memory until its retryAfter ends,
     * without a round trip; a key reset by another process stays refused until then.
     *
     * @param cacheRejections true to cache rejections
     * @return a copy with this setting; this configuration is unchanged
     */
    public LimiterConfig cacheRejections(boolean cacheRejections) {
        LimiterConfig out = new LimiterConfig(this);
        out.cacheRejections = cacheRejections;
        return out;
    }

    /**
     * How many rejected command lines the cache holds, the oldest dropped first.
     *
     * @param cacheSize at least 1
     * @return a copy with this setting; this configuration is unchanged
     * @throws IllegalArgumentException if {@code cacheSize} is below 1
     */
    public LimiterConfig cacheSize(int cacheSize) {
        if (cacheSize < 1) {
            throw new IllegalArgumentException("cacheSize must be at least 1, not " + cacheSize);
        }
        LimiterConfig out = new LimiterConfig(this);
        out.cacheSize = cacheSize;
        return out;
    }

    /**
     * The BLOCK of every recording call that gives none of its own: a rejected key is refused
     * for this long.
     *
     * @param block at least 1 ms, in whole milliseconds
     * @return a copy with this setting; this configuration is unchanged
     * @throws IllegalArgumentException if {@code block} is null, under 1 ms or not whole ms
     */
    public LimiterConfig block(Duration block) {
        long ms = Args.millis("block", block);
        if (ms < 1) {
            throw new IllegalArgumentException("block must be at least 1 ms, not " + block);
        }
        LimiterConfig out = new LimiterConfig(this);
        out.blockMs = ms;
        return out;
    }

    /**
     * How long a call waits for Redis; then it fails with
     * {@link io.winlimit.model.RedisTimeoutException} (or goes to the fallback) and is never sent
     * again.
     *
     * @param timeout at least 1 ms, in whole milliseconds
     * @return a copy with this setting; this configuration is unchanged
     * @throws IllegalArgumentException if {@code timeout} is null, under 1 ms or not whole ms
     */
    public LimiterConfig timeout(Duration timeout) {
        long ms = Args.millis("timeout", timeout);
        if (ms < 1) {
            throw new IllegalArgumentException("timeout must be at least 1 ms, not " + timeout);
        }
        LimiterConfig out = new LimiterConfig(this);
        out.timeout = timeout;
        return out;
    }

    /**
     * The circuit breaker's options (on by default; {@code BreakerOptions.disabled()} turns it off).
     *
     * @param breaker the options, one breaker per server (cluster node)
     * @return a copy with this setting; this configuration is unchanged
     * @throws IllegalArgumentException if {@code breaker} is null
     */
    public LimiterConfig breaker(io.winlimit.breaker.BreakerOptions breaker) {
        if (breaker == null) {
            throw new IllegalArgumentException("breaker must not be null (BreakerOptions.disabled() turns it off)");
        }
        LimiterConfig out = new LimiterConfig(this);
        out.breaker = breaker;
        return out;
    }

    /**
     * What decides while Redis fails or the breaker is open, e.g. a MemoryLimiter; without one
     * such a call fails (at once, unsent, while the breaker is open).
     *
     * @param fallback the fallback, or null for none
     * @return a copy with this setting; this configuration is unchanged
     */
    public LimiterConfig fallback(Fallback fallback) {
        LimiterConfig out = new LimiterConfig(this);
        out.fallback = fallback;
        return out;
    }

    /**
     * The breaker's clock in ms (this process's monotonic clock); tests pass their own.
     *
     * @param clock milliseconds, monotonic; called from any thread
     * @return a copy with this setting; this configuration is unchanged
     */
    public LimiterConfig breakerClock(java.util.function.DoubleSupplier clock) {
        LimiterConfig out = new LimiterConfig(this);
        out.breakerClock = clock;
        return out;
    }

    /**
     * The breaker's clock.
     *
     * @return milliseconds, monotonic
     */
    public java.util.function.DoubleSupplier breakerClock() {
        return breakerClock;
    }

    /**
     * The circuit breaker's options.
     *
     * @return the options (disabled ones when the breaker is off)
     */
    public io.winlimit.breaker.BreakerOptions breaker() {
        return breaker;
    }

    /**
     * What decides while Redis fails or the breaker is open.
     *
     * @return the fallback, empty if there is none
     */
    public Optional<Fallback> fallback() {
        return Optional.ofNullable(fallback);
    }

    /**
     * The policy name of the header fields.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Which edition of winlimit answers.
     *
     * @return the choice
     */
    public BackendChoice backend() {
        return backend;
    }

    /**
     * Whether rejections are answered from memory until their retryAfter ends.
     *
     * @return true if they are
     */
    public boolean cacheRejections() {
        return cacheRejections;
    }

    /**
     * How many rejected command lines the cache holds.
     *
     * @return the size, at least 1
     */
    public int cacheSize() {
        return cacheSize;
    }

    /**
     * The BLOCK of recording calls that give none.
     *
     * @return milliseconds, empty if none is set
     */
    public OptionalLong blockMs() {
        return blockMs == null ? OptionalLong.empty() : OptionalLong.of(blockMs);
    }

    /**
     * How long a call waits for Redis.
     *
     * @return the timeout, whole milliseconds
     */
    public Duration timeout() {
        return timeout;
    }

}
