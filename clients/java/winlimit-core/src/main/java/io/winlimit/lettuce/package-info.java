/**
 * Public API: {@code WinlimitLettuce}, the entry point for a Lettuce connection (standalone
 * or cluster) with sync, async and reactive views, and {@code reliability(ClientOptions)}.
 * {@code LettuceExecutor} is its implementation of the {@code io.winlimit.spi} executor.
 */
package io.winlimit.lettuce;
