package io.winlimit.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.winlimit.Limiter;
import io.winlimit.LimiterConfig;
import io.winlimit.lettuce.WinlimitLettuce;
import io.winlimit.internal.library.Library;
import io.winlimit.model.Backend;
import io.winlimit.model.BackendChoice;
import io.winlimit.model.Decision;
import io.winlimit.model.MissingPermissionException;
import io.winlimit.support.CallDeadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The library loaded where it is missing, older ones replaced, newer ones kept; the script
 * loaded after SCRIPT FLUSH; ACL refusals named by the rule to add. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BackendsTest {
    private static final Duration W = Duration.ofMinutes(1);
    // README's rules for the data the library touches (Redis 6 reads expiries with PTTL).
    private static final String DATA_7 = "+time +type +pexpiretime +pttl +get +zcard +zcount +zrange +zrangebyscore +zrevrange"
            + " +set +incr +incrby +bitfield +zadd +zrem +zremrangebyscore +del +pexpireat";
    private static final String DATA_6 = DATA_7.replace("+pexpiretime ", "");
    private static final String CALLER_7 = "+fcall +fcall_ro +evalsha +script|load +command|info";

    private RedisServer functions;
    private RedisServer scripts;
    private final List<RedisClient> clients = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        functions = new RedisServer("redis-7.0", false);
        scripts = new RedisServer("redis-6.2", false);
    }

    @AfterAll
    void stopServers() {
        functions.close();
        scripts.close();
    }

    @BeforeEach
    void flush() throws Exception {
        functions.call("FLUSHALL");
        functions.call("FUNCTION", "FLUSH");
        functions.call("SCRIPT", "FLUSH");
        scripts.call("FLUSHALL");
        scripts.call("SCRIPT", "FLUSH");
    }

    @AfterEach
    void closeClients() {
        clients.forEach(RedisClient::shutdown);
        clients.clear();
    }

    private Limiter limiter(RedisServer server, LimiterConfig config, String user) {
        RedisURI uri = RedisURI.create("127.0.0.1", server.port());
        if (user != null) {
            uri.setUsername(user);
            uri.setPassword("pw".toCharArray());
        }
        RedisClient client = RedisClient.create(uri);
        clients.add(client);
        return WinlimitLettuce.limiter(client.connect(StringCodec.UTF8), config);
    }

    private static String withVersion(String version) {
        Library own = Library.get();
        return own.text().replace("local VERSION = '" + own.version() + "'", "local VERSION = '" + version + "'");
    }

    private String loadedVersion() throws Exception {
        return String.valueOf(functions.call("FCALL_RO", "winlimit_version", "0"));
    }

    @Test
    void theLibraryIsLoadedWhereItIsMissingAndAgainAfterFunctionFlush() throws Exception {
        Limiter limiter = limiter(functions, CallDeadline.config(), null);
        assertEquals(Backend.FUNCTIONS, limiter.fixed("k", W, 5).backend());
        assertEquals(Library.get().version(), loadedVersion());
        functions.call("FUNCTION", "FLUSH");
        Decision again = limiter.fixed("k", W, 5);
        assertEquals(3, again.remaining(), "counted once after the reload");
        assertEquals(Library.get().version(), loadedVersion());
    }

    @Test
    void anOlderLibraryIsReplaced() throws Exception {
        functions.call("FUNCTION", "LOAD", withVersion("0.0.1"));
        limiter(functions, CallDeadline.config(), null).gcra("k", W, 5);
        assertEquals(Library.get().version(), loadedVersion());
    }

    @Test
    void aNewerLibraryIsLeftAloneAndUsed() throws Exception {
        functions.call("FUNCTION", "LOAD", withVersion("99.0.0"));
        Limiter limiter = limiter(functions, CallDeadline.config(), null);
        assertEquals(4, limiter.gcra("k", W, 5).remaining());
        assertEquals("99.0.0", loadedVersion());
    }

    @Test
    void aModuleUnloadedSinceItWasDetectedIsDetectedAgainAndTheLibraryAnswers() throws Exception {
        try (RedisServer server = new RedisServer("redis-7.0", true, "--enable-module-command", "local")) {
            Limiter limiter = limiter(server, CallDeadline.config(), null);
            assertEquals(Backend.MODULE, limiter.fixed("k", W, 5).backend());
            server.call("MODULE", "UNLOAD", "winlimit");
            Decision after = limiter.fixed("other", W, 5);
            assertEquals(Backend.FUNCTIONS, after.backend());
            assertEquals(4, after.remaining());
        }
    }

    @Test
    void theScriptIsLoadedAgainAfterScriptFlushAndTheCallCountsOnce() throws Exception {
        Limiter limiter = limiter(scripts, CallDeadline.config(), null);
        assertEquals(Backend.SCRIPTS, limiter.slide("k", W, 5).backend());
        scripts.call("SCRIPT", "FLUSH");
        assertEquals(3, limiter.slide("k", W, 5).remaining());
    }

    @Test
    void theScriptIsBuiltAsScriptsBuildLuaBuildsIt() throws Exception {
        java.nio.file.Path out = java.nio.file.Files.createTempFile("winlimit-script", ".lua");
        Process p = new ProcessBuilder("python3", io.winlimit.support.Repo.path("scripts/build-lua.py").toString(), out.toString())
                .inheritIO().start();
        assertEquals(0, p.waitFor());
        assertEquals(java.nio.file.Files.readString(out), Library.get().script());
        assertEquals(java.nio.file.Files.readString(io.winlimit.support.Repo.path("lua/winlimit.lua")), Library.get().text());
        java.nio.file.Files.delete(out);
    }

    @Test
    void aUserWhoMayNotLoadFunctionsGetsTheScriptsWithAuto() throws Exception {
        setUser(functions, CALLER_7 + " " + DATA_7);
        Limiter limiter = limiter(functions, CallDeadline.config(), "app");
        assertEquals(List.of(Backend.SCRIPTS, Backend.SCRIPTS),
                List.of(limiter.slide("k", W, 5).backend(), limiter.slide("k", W, 5).backend()));
        assertEquals(List.of(), functions.call("FUNCTION", "LIST"));
    }

    @Test
    void forcingFunctionsForThatUserNamesTheMissingRule() throws Exception {
        setUser(functions, CALLER_7 + " " + DATA_7);
        Limiter limiter = limiter(functions, CallDeadline.config().backend(BackendChoice.FUNCTIONS), "app");
        MissingPermissionException e = assertThrows(MissingPermissionException.class, () -> limiter.slide("k", W, 5));
        assertTrue(e.getMessage().contains("+function|load"), e.getMessage());
        assertEquals(0L, functions.call("EXISTS", "k"));
    }

    @Test
    void aUserWhoMayNotAskCommandInfoIsToldTheRule() throws Exception {
        setUser(functions, "+fcall +fcall_ro +evalsha +script|load " + DATA_7);
        Limiter limiter = limiter(functions, CallDeadline.config(), "app");
        MissingPermissionException e = assertThrows(MissingPermissionException.class, () -> limiter.slide("k", W, 5));
        assertTrue(e.getMessage().contains("+command|info"), e.getMessage());
    }

    @Test
    void aUserWhoMayNotLoadScriptsIsToldTheRule() throws Exception {
        setUser(scripts, "+evalsha +command|info " + DATA_6);
        Limiter limiter = limiter(scripts, CallDeadline.config(), "app");
        MissingPermissionException e = assertThrows(MissingPermissionException.class, () -> limiter.slide("k", W, 5));
        assertTrue(e.getMessage().contains("+script|load"), e.getMessage());
        assertEquals(0L, scripts.call("EXISTS", "k"));
    }

    private static void setUser(RedisServer server, String rules) throws Exception {
        List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", "app", "reset", "on", ">pw", "~*"));
        args.addAll(List.of(rules.split(" ")));
        Object reply = server.call(args.toArray(new String[0]));
        assertEquals("OK", reply, String.valueOf(reply));
    }
}
