package io.winlimit.spring.cloud.gateway;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The check of a RequestRateLimiter filter's arguments against winlimit's options, at start:
 * an argument under {@code winlimit-rate-limiter.} that names no option, or one of winlimit's
 * options written without that prefix, stops the start naming it. Both would otherwise be
 * ignored by the binder, and the route limited differently from what its file says (a
 * {@code fail-open: true} without the prefix leaves the route failing closed).
 */
final class RouteArguments {
    private static final String PREFIX = WinlimitRateLimiter.CONFIGURATION_PROPERTY_NAME + ".";
    // The options of WinlimitRateLimiter.Config, in Boot's relaxed form (no dashes, lower case).
    private static final Set<String> OPTIONS = Set.of("algorithm", "cost", "burst", "bucket", "align", "failopen",
            "shadow", "name");
    private static final Pattern WINDOW = Pattern.compile("windows(\\[\\d+]|\\.\\d+)\\.(window|limit)");

    private RouteArguments() {}

    /** IllegalArgumentException naming the first argument of {@code args} that is not one of
     * winlimit's options under the prefix, yet is under the prefix or is one of them. */
    static void check(String routeId, Map<String, ?> args) {
        for (String argument : args.keySet()) {
            if (argument.startsWith(PREFIX)) {
                if (!isOption(argument.substring(PREFIX.length()))) {
                    throw new IllegalArgumentException("route " + routeId + ": " + argument + " is not an option of "
                            + "winlimit's rate limiter; its options are " + PREFIX + "algorithm, windows[N].window, "
                            + "windows[N].limit, cost, burst, bucket, align, fail-open, shadow and name");
                }
            } else if (isOption(argument) || argument.startsWith("windows")) {
                throw new IllegalArgumentException("route " + routeId + ": the RequestRateLimiter argument " + argument
                        + " is winlimit's and is read only with its prefix: write " + PREFIX + argument);
            }
        }
    }

    private static boolean isOption(String name) {
        return OPTIONS.contains(name.replace("-", "").toLowerCase(Locale.ROOT)) || WINDOW.matcher(name).matches();
    }
}
