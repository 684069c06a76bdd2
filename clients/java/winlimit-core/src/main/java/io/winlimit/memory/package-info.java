/**
 * Public API: {@code MemoryLimiter}, the module's decisions counted in this process: a
 * fallback while Redis fails, or a limiter for tests and single-process applications
 * (clients/spec/decisions.json, limits.json). Everything else here is its implementation.
 */
package io.winlimit.memory;
