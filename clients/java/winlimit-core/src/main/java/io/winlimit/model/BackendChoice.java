package io.winlimit.model;

import java.util.Locale;

/** Which edition of winlimit a limiter asks. */
public enum BackendChoice {
    /** The module where the server has it, else Functions where it has them, else the scripts;
     * decided once per server (per cluster node). */
    AUTO,
    /** The module's WINLIMIT commands only. */
    MODULE,
    /** The Functions library (FCALL), loaded where it is missing or older. */
    FUNCTIONS,
    /** The script (EVALSHA), loaded where it is missing: for Redis 6. */
    SCRIPTS;

    /**
     * "auto", "module", "functions" or "scripts"; IllegalArgumentException for anything else.
     *
     * @param name the lower-case name
     * @return the choice
     * @throws IllegalArgumentException for anything else, null included
     */
    public static BackendChoice of(String name) {
        if (name != null) {
            for (BackendChoice choice : values()) {
                if (choice.name().toLowerCase(Locale.ROOT).equals(name)) {
                    return choice;
                }
            }
        }
        throw new IllegalArgumentException(
                "backend must be one of \"auto\", \"module\", \"functions\", \"scripts\", not " + Texts.quoted(name));
    }
}
