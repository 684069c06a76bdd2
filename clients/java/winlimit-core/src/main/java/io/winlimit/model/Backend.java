package io.winlimit.model;

/** Which edition of winlimit answered a decision. */
public enum Backend {
    /** The module's WINLIMIT commands. */
    MODULE("module"),
    /** The Functions library, by FCALL (Redis 7 and later, Valkey). */
    FUNCTIONS("functions"),
    /** The same library as a script, by EVALSHA (Redis 6). */
    SCRIPTS("scripts"),
    /** The in-process memory limiter ({@code MemoryLimiter}, the fallback). */
    MEMORY("memory");

    private final String label;

    Backend(String label) {
        this.label = label;
    }

    /**
     * The name the other winlimit clients use: "module", "functions", "scripts", "memory".
     *
     * @return the label
     */
    public String label() {
        return label;
    }

    @Override
    public String toString() {
        return label;
    }
}
