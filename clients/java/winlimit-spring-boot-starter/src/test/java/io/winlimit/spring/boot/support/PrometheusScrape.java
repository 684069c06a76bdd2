package io.winlimit.spring.boot.support;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a Prometheus text scrape: each sample's metric name and every label name it carries. */
public final class PrometheusScrape {
    private static final Pattern SAMPLE = Pattern.compile("^(\\w+)(?:\\{(.*)\\})? ");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"");

    private PrometheusScrape() {}

    /** Metric name to the label names its samples carry; comments and blank lines skipped. */
    public static Map<String, Set<String>> labelsByMetric(String body) {
        Map<String, Set<String>> names = new HashMap<>();
        for (String line : body.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (!sample.find()) {
                continue; // # HELP, # TYPE, or a blank line
            }
            Set<String> labels = names.computeIfAbsent(sample.group(1), k -> new HashSet<>());
            if (sample.group(2) != null) {
                Matcher label = LABEL.matcher(sample.group(2));
                while (label.find()) {
                    labels.add(label.group(1));
                }
            }
        }
        return names;
    }
}
