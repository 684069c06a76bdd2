/**
 * Public API: {@code WinlimitSpringData}, the entry point for Spring Data Redis's
 * {@code RedisConnectionFactory}, {@code StringRedisTemplate} and
 * {@code ReactiveRedisConnectionFactory}. {@code SpringDataExecutor} is its implementation of
 * the {@code io.winlimit.spi} executor (the starter builds on it).
 */
package io.winlimit.springdata;
