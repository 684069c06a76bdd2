package io.winlimit.model;

/** The server does not know the WINLIMIT commands: the module is not loaded there (and the
 * limiter was told to use the module). The message is the server's text, " -- ", and the fix. */
public class ModuleNotLoadedException extends RedisServerException {
    private static final long serialVersionUID = 1L;

    /** What the exception adds to the server's text, after " -- " (constants.json). */
    public static final String FIX = "the winlimit module is not loaded on this server. Load it at start-up with "
            + "`redis-server --loadmodule /path/to/libwinlimit.so` (or `loadmodule /path/to/libwinlimit.so` "
            + "in redis.conf), or at run time with `MODULE LOAD /path/to/libwinlimit.so`; in a cluster, "
            + "on every node.";

    /**
     * The server's error, with the fix added.
     *
     * @param serverText the server's error text
     * @param cause the client's error that carried it, or null
     */
    public ModuleNotLoadedException(String serverText, Throwable cause) {
        super(serverText + " -- " + FIX, cause);
    }
}
