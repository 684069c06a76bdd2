package io.winlimit.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.winlimit.Fallback;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Member;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API names no type of {@code io.winlimit.internal}: the implementation there may
 * change in any release (README, "the public API"), so no public or protected signature
 * outside it, a parameter, a result, a field or a thrown type, may make an application name it.
 */
class PublicApiTest {
    private static final String INTERNAL = "io.winlimit.internal.";

    /** Every class winlimit-core compiled outside io.winlimit.internal, by name. */
    private static List<String> apiClasses() {
        try {
            Path root = Path.of(Fallback.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            try (Stream<Path> files = Files.walk(root.resolve("io/winlimit"))) {
                return files.map(f -> root.relativize(f).toString())
                        .filter(f -> f.endsWith(".class") && !f.endsWith("package-info.class"))
                        .map(f -> f.substring(0, f.length() - ".class".length()).replace('/', '.'))
                        .filter(name -> !name.startsWith(INTERNAL))
                        .toList();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The public and protected signatures of a public class that name an internal type. */
    private static List<String> leaks(Class<?> c) {
        List<String> out = new ArrayList<>();
        if (!Modifier.isPublic(c.getModifiers())) {
            return out;
        }
        List<Member> members = new ArrayList<>();
        members.addAll(List.of(c.getDeclaredMethods()));
        members.addAll(List.of(c.getDeclaredConstructors()));
        members.addAll(List.of(c.getDeclaredFields()));
        for (Member m : members) {
            boolean visible = Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers());
            String signature = m instanceof java.lang.reflect.Field f ? f.toGenericString()
                    : ((java.lang.reflect.Executable) m).toGenericString();
            if (visible && !m.isSynthetic() && signature.contains(INTERNAL)) {
                out.add(signature);
            }
        }
        String supertypes = c.getGenericSuperclass() + " " + List.of(c.getGenericInterfaces());
        if (supertypes.contains(INTERNAL)) {
            out.add(c.getName() + " extends or implements " + supertypes);
        }
        return out;
    }

    @Test
    void noPublicSignatureNamesAnInternalType() throws ClassNotFoundException {
        List<String> classes = apiClasses();
        assertTrue(classes.contains("io.winlimit.Fallback"), "the walk found the API's classes: " + classes);
        List<String> leaks = new ArrayList<>();
        for (String name : classes) {
            leaks.addAll(leaks(Class.forName(name, false, PublicApiTest.class.getClassLoader())));
        }
        assertEquals(List.of(), leaks);
    }
}
