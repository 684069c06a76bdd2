/**
 * Service provider interface, not for applications: how a limiter sends a command
 * ({@code RedisExecutor}, {@code RedisCommand}), one implementation per Redis client
 * (as bucket4j's {@code RedisApi}). Needed only to adapt another Redis client.
 */
package io.winlimit.spi;
