/**
 * Public API: the limiter and its views, {@code Limiter} (blocking), {@code AsyncLimiter}
 * ({@code CompletionStage}) and {@code ReactiveLimiter} ({@code Mono}), its configuration
 * {@code LimiterConfig}, {@code LimiterListener}, and {@code Fallback}, what decides while
 * Redis fails ({@code io.winlimit.memory.MemoryLimiter} is the one to use: a {@code Fallback}
 * is given the command line the limiter would have sent, and the policies of its reply). A
 * limiter is made by an adapter's entry point ({@code WinlimitLettuce}, {@code WinlimitJedis},
 * {@code WinlimitSpringData}).
 */
package io.winlimit;
