package io.winlimit.support;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the repository is: the tests read clients/spec, lua/ and .cache from it. */
public final class Repo {
    private Repo() {}

    public static Path root() {
        String configured = System.getProperty("winlimit.repo");
        Path start = configured != null ? Path.of(configured) : Path.of("").toAbsolutePath();
        for (Path p = start.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("lua/winlimit.lua")) && Files.isDirectory(p.resolve("clients/spec"))) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find the winlimit repository from " + start);
    }

    public static Path path(String relative) {
        return root().resolve(relative);
    }
}
