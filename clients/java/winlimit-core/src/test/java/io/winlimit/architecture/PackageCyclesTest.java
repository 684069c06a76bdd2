package io.winlimit.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.winlimit.support.Repo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No import cycles between winlimit-core's packages (the project's rule): the graph is read from
 * the sources, each file's package and every {@code io.winlimit...} name it imports or writes out
 * in full (a Javadoc link included), and a cycle fails naming its packages in order.
 */
class PackageCyclesTest {
    private static final Path SOURCES = Repo.path("clients/java/winlimit-core/src/main/java");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    // A package name is lower case; the first upper-case part is the class.
    private static final Pattern REFERENCE = Pattern.compile("\\b(io\\.winlimit(?:\\.[a-z]\\w*)*)\\.[A-Z*]");

    /** Each package to the packages its files name, itself left out. */
    static Map<String, Set<String>> graph(Path sources) {
        Map<String, Set<String>> graph = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String text = Files.readString(file);
                Matcher pkg = PACKAGE.matcher(text);
                if (!pkg.find()) {
                    continue; // a file without a package statement has no package to cycle
                }
                Set<String> uses = graph.computeIfAbsent(pkg.group(1), p -> new TreeSet<>());
                Matcher ref = REFERENCE.matcher(text.substring(pkg.end()));
                while (ref.find()) {
                    if (!ref.group(1).equals(pkg.group(1))) {
                        uses.add(ref.group(1));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return graph;
    }

    /** The first cycle found, as the packages along it back to the first ([] when there is none). */
    static List<String> cycle(Map<String, Set<String>> graph) {
        Set<String> done = new TreeSet<>();
        for (String start : graph.keySet()) {
            List<String> found = walk(graph, start, new ArrayList<>(), done);
            if (!found.isEmpty()) {
                return found;
            }
        }
        return List.of();
    }

    private static List<String> walk(Map<String, Set<String>> graph, String at, List<String> path, Set<String> done) {
        int seen = path.indexOf(at);
        if (seen >= 0) {
            List<String> cycle = new ArrayList<>(path.subList(seen, path.size()));
            cycle.add(at);
            return cycle;
        }
        if (done.contains(at)) {
            return List.of();
        }
        path.add(at);
        for (String next : graph.getOrDefault(at, Set.of())) {
            List<String> found = walk(graph, next, path, done);
            if (!found.isEmpty()) {
                return found;
            }
        }
        path.remove(path.size() - 1);
        done.add(at);
        return List.of();
    }

    @Test
    void winlimitCoreHasNoPackageCycle() {
        Map<String, Set<String>> graph = graph(SOURCES);
        assertTrue(graph.size() > 5 && graph.containsKey("io.winlimit.internal.protocol"), "read no packages from " + SOURCES);
        assertEquals(List.of(), cycle(graph), "a package cycle: " + String.join(" -> ", cycle(graph)));
    }

    /** The model is a leaf but for its argument checks and JSON text, which are not API and
     * are a leaf themselves. */
    @Test
    void theModelPackageNamesOnlyTheTextHelpersWhichNameNoWinlimitPackage() {
        Map<String, Set<String>> graph = graph(SOURCES);
        assertEquals(Set.of("io.winlimit.internal.text"), graph.get("io.winlimit.model"));
        assertEquals(Set.of(), graph.get("io.winlimit.internal.text"));
    }

    @Test
    void aCycleIsFoundAndNamed() {
        Map<String, Set<String>> graph = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
        List<String> found = cycle(graph);
        assertEquals(4, found.size(), found.toString());
        assertEquals(found.get(0), found.get(3));
        assertEquals(Set.of("a", "b", "c"), new TreeSet<>(found));
        assertEquals(List.of(), cycle(Map.of("a", Set.of("b"), "b", Set.of("c"), "d", Set.of("a", "c"))));
    }
}
