package io.winlimit.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which rate-limit header fields a decision gives, and how the fields of two limits on one
 * response combine. The rules are the clients' shared ones (clients/spec/header_styles.json).
 */
public enum HeaderStyle {
    /** RateLimit-Policy and RateLimit of draft-ietf-httpapi-ratelimit-headers-11: the default. */
    DRAFT_11("draft-11"),
    /** RateLimit-Policy and RateLimit as draft 7 wrote them (express-rate-limit's draft-7). */
    DRAFT_7("draft-7"),
    /** X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (a Unix time in s). */
    LEGACY("legacy"),
    /** No fields but Retry-After. */
    NONE(null);

    /** Every field a style may send. */
    public static final List<String> FIELDS = List.of("RateLimit-Policy", "RateLimit", "X-RateLimit-Limit",
            "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After");

    private final String label;

    HeaderStyle(String label) {
        this.label = label;
    }

    /**
     * "draft-11", "draft-7", "legacy", or null for NONE: the other clients' names.
     *
     * @return the label, null for NONE
     */
    public String label() {
        return label;
    }

    /**
     * The style of that label ("none" or null for NONE); IllegalArgumentException otherwise.
     *
     * @param label a label of {@link #label()}, "none" or null
     * @return the style
     * @throws IllegalArgumentException for any other label
     */
    public static HeaderStyle of(String label) {
        if (label == null || label.equals("none")) {
            return NONE;
        }
        for (HeaderStyle style : values()) {
            if (label.equals(style.label)) {
                return style;
            }
        }
        throw new IllegalArgumentException(
                "headers must be one of \"draft-11\", \"draft-7\", \"legacy\", \"none\", not " + Texts.quoted(label));
    }

    /**
     * The response fields of {@code decision} in this style; {@code nowMs} dates legacy's reset.
     *
     * @param decision the decision
     * @param nowMs the wall clock, ms since the epoch
     * @return the fields by name, in the order to send them; empty for NONE
     * @throws IllegalStateException for a decision without its binding policy
     */
    public Map<String, String> fields(Decision decision, long nowMs) {
        return HeaderFields.of(decision, this, nowMs);
    }

    /**
     * The fields for a response that has {@code on} (another limit's, by field name) and gets
     * {@code added}: draft-11 lists both policies; draft-7 and legacy keep the fields of the one
     * with the least remaining ({@code on} on a tie); Retry-After is {@code on}'s if it has one.
     *
     * @param on the fields the response has
     * @param added the fields of another decision
     * @return the fields to send, by name
     */
    public Map<String, String> merged(Map<String, String> on, Map<String, String> added) {
        return HeaderFields.merged(on, added, this);
    }

    static Map<String, String> ordered() {
        return new LinkedHashMap<>();
    }
}
