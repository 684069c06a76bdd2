package io.winlimit.spring.boot.support;

import java.util.Comparator;
import java.util.Map;

/**
 * Every thread of this JVM with its whole stack: what a test prints when a request to its
 * application (which runs in this JVM, with its backend) stays unanswered far past its usual
 * time, so a rare hang shows where it waits instead of only that it waited.
 */
final class ThreadDump {
    private ThreadDump() {}

    static String now() {
        StringBuilder out = new StringBuilder();
        Thread.getAllStackTraces().entrySet().stream()
                .sorted(Comparator.comparing((Map.Entry<Thread, StackTraceElement[]> e) -> e.getKey().getName()))
                .forEach(e -> {
                    Thread thread = e.getKey();
                    out.append('"').append(thread.getName()).append("\" ").append(thread.getState()).append('\n');
                    for (StackTraceElement frame : e.getValue()) {
                        out.append("    at ").append(frame).append('\n');
                    }
                });
        return out.toString();
    }
}
