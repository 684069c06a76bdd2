/**
 * Public API: {@code WinlimitJedis}, the entry point for a Jedis {@code UnifiedJedis}
 * ({@code JedisPooled}, {@code JedisCluster}); blocking only. {@code JedisExecutor} is its
 * implementation of the {@code io.winlimit.spi} executor.
 */
package io.winlimit.jedis;
