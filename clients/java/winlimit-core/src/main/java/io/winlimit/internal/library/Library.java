package io.winlimit.internal.library;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The winlimit library as built into the jar (lua/winlimit.lua, copied at build time), its
 * Redis 6 script form, the script's SHA1 and the library's version.
 */
public final class Library {
    private static final String RESOURCE = "winlimit.lua";
    private static final Pattern VERSION = Pattern.compile("^local VERSION = '([^']+)'$", Pattern.MULTILINE);
    private static volatile Library instance;

    private final String text;
    private final String script;
    private final String sha;
    private final String version;

    Library(String text) {
        this.text = text;
        this.script = scriptFrom(text);
        this.sha = sha1(script);
        Matcher m = VERSION.matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("the packaged winlimit.lua has no VERSION line");
        }
        this.version = m.group(1);
    }

    /**
     * The library in this jar, read once.
     *
     * @return the library
     */
    public static Library get() {
        Library lib = instance;
        if (lib == null) {
            synchronized (Library.class) {
                lib = instance;
                if (lib == null) {
                    lib = instance = new Library(read());
                }
            }
        }
        return lib;
    }

    private static String read() {
        try (InputStream in = Library.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("io/winlimit/internal/library/winlimit.lua is missing from the classpath: the "
                        + "jar was built without lua/winlimit.lua (build it with Maven from clients/java)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the packaged winlimit.lua", e);
        }
    }

    /** The library's text as a plain script, as scripts/build-lua.py makes it: the {@code #!}
     * line replaced by a comment (a syntax error on 6.x), nothing else changed. */
    static String scriptFrom(String library) {
        int newline = library.indexOf('\n');
        String first = newline < 0 ? library : library.substring(0, newline);
        if (!first.startsWith("#!lua")) {
            throw new IllegalStateException("winlimit.lua must start with its #!lua name=winlimit line");
        }
        String rest = newline < 0 ? "" : library.substring(newline + 1);
        return "-- winlimit script for EVALSHA, built from lua/winlimit.lua by scripts/build-lua.py\n" + rest;
    }

    private static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder out = new StringBuilder();
            for (byte b : digest) {
                out.append(String.format("%02x", b));
            }
            return out.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-1", e);
        }
    }

    /**
     * "0.4.0" as (0, 4, 0); anything unreadable is older than every version.
     *
     * @param version a dotted version
     * @return its numeric parts, empty when unreadable
     */
    public static List<Integer> versionParts(String version) {
        List<Integer> parts = new ArrayList<>();
        if (version == null) {
            return parts;
        }
        for (String part : version.split("\\.", -1)) {
            if (!part.matches("\\d{1,9}")) {
                return List.of();
            }
            parts.add(Integer.parseInt(part));
        }
        return parts;
    }

    /**
     * True when version {@code a} is at least {@code b}, comparing parts as Python's tuples do.
     *
     * @param a a version
     * @param b the version to compare with
     * @return true if {@code a} is at least {@code b}
     */
    public static boolean atLeast(String a, String b) {
        List<Integer> x = versionParts(a);
        List<Integer> y = versionParts(b);
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            if (!x.get(i).equals(y.get(i))) {
                return x.get(i) > y.get(i);
            }
        }
        return x.size() >= y.size();
    }

    /**
     * The library, with its {@code #!lua name=winlimit} line, for FUNCTION LOAD.
     *
     * @return the library's Lua source
     */
    public String text() {
        return text;
    }

    /**
     * The script form, for SCRIPT LOAD and EVALSHA.
     *
     * @return the script's source
     */
    public String script() {
        return script;
    }

    /**
     * The script's SHA1, as EVALSHA takes it.
     *
     * @return 40 lower-case hex digits
     */
    public String sha() {
        return sha;
    }

    /**
     * The library's version, as winlimit_version returns it.
     *
     * @return the version, e.g. "0.4.0"
     */
    public String version() {
        return version;
    }
}
