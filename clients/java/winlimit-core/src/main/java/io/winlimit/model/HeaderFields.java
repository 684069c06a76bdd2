package io.winlimit.model;

import io.winlimit.internal.text.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The header fields of each style, and how two sets combine (header_styles.json). */
final class HeaderFields {
    private static final Pattern DRAFT_7_REMAINING = Pattern.compile("remaining=(\\d+)");

    private HeaderFields() {}

    /** Whole seconds, rounded up: the fields carry no fractions, and rounding down would tell a
     * client to come back too early. */
    static long ceilSeconds(long ms) {
        return Math.floorDiv(ms, 1000) + (Math.floorMod(ms, 1000) == 0 ? 0 : 1);
    }

    /** {@code value} as a Structured Field String (RFC 9651, 4.1.6): printable ASCII only, with
     * {@code "} and {@code \} escaped. IllegalArgumentException for anything else. */
    static String sfString(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException("a policy name must be printable ASCII, not " + Json.quote(value));
            }
            if (c == '"' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.append('"').toString();
    }

    static Map<String, String> of(Decision decision, HeaderStyle style, long nowMs) {
        Policy policy = decision.policy().orElseThrow(() -> new IllegalStateException(
                "this decision has no policy whose quota is its limit (" + decision.limit() + "): " + decision.policies()));
        boolean rejectedForNow = !decision.allowed() && decision.retryAfterMs() > 0;
        long retry = rejectedForNow ? Math.max(1, ceilSeconds(decision.retryAfterMs())) : 0;
        long resetMs = rejectedForNow ? Math.min(decision.resetAfterMs(), decision.retryAfterMs()) : decision.resetAfterMs();
        Map<String, String> out = new LinkedHashMap<>();
        switch (style) {
            case DRAFT_11 -> {
                StringBuilder all = new StringBuilder();
                for (Policy p : decision.policies()) {
                    all.append(all.length() == 0 ? "" : ", ").append(sfString(p.name())).append(";q=").append(p.quota())
                            .append(";w=").append(ceilSeconds(p.windowMs()));
                }
                long t = ceilSeconds(decision.resetAfterMs());
                out.put("RateLimit-Policy", all.toString());
                out.put("RateLimit", sfString(policy.name()) + ";r=" + decision.remaining() + ";t="
                        + (rejectedForNow ? Math.min(t, retry) : t));
            }
            case DRAFT_7 -> {
                out.put("RateLimit-Policy", policy.quota() + ";w=" + ceilSeconds(policy.windowMs()));
                out.put("RateLimit", "limit=" + policy.quota() + ", remaining=" + decision.remaining() + ", reset="
                        + ceilSeconds(resetMs));
            }
            case LEGACY -> {
                out.put("X-RateLimit-Limit", Long.toString(policy.quota()));
                out.put("X-RateLimit-Remaining", Long.toString(decision.remaining()));
                out.put("X-RateLimit-Reset", Long.toString(ceilSeconds(nowMs + resetMs)));
            }
            case NONE -> { }
        }
        if (rejectedForNow) {
            out.put("Retry-After", Long.toString(retry));
        }
        return out;
    }

    static Map<String, String> merged(Map<String, String> on, Map<String, String> added, HeaderStyle style) {
        if (HeaderStyle.FIELDS.stream().noneMatch(on::containsKey)) {
            return new LinkedHashMap<>(added);
        }
        Map<String, String> out = new LinkedHashMap<>();
        if (style == HeaderStyle.DRAFT_11) {
            for (String name : new String[] {"RateLimit-Policy", "RateLimit"}) {
                out.put(name, on.containsKey(name) ? on.get(name) + ", " + added.get(name) : added.get(name));
            }
        } else {
            Map<String, String> kept = style != HeaderStyle.NONE && remaining(added, style) < remaining(on, style) ? added : on;
            kept.forEach((name, value) -> {
                if (HeaderStyle.FIELDS.contains(name) && !name.equals("Retry-After")) {
                    out.put(name, value);
                }
            });
        }
        String retry = on.containsKey("Retry-After") ? on.get("Retry-After") : added.get("Retry-After");
        if (retry != null) {
            out.put("Retry-After", retry);
        }
        return out;
    }

    /** The remaining units the fields of a style give; Long.MAX_VALUE when they give none (not
     * this style: ours has less). */
    private static long remaining(Map<String, String> fields, HeaderStyle style) {
        String text = null;
        if (style == HeaderStyle.LEGACY) {
            text = fields.get("X-RateLimit-Remaining");
        } else if (fields.get("RateLimit") != null) {
            Matcher m = DRAFT_7_REMAINING.matcher(fields.get("RateLimit"));
            text = m.find() ? m.group(1) : null;
        }
        if (text == null || !text.matches("-?\\d{1,18}")) {
            return Long.MAX_VALUE;
        }
        return Long.parseLong(text);
    }
}
