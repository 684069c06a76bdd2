/**
 * Not API: the limiter's implementation, which may change in any release without notice;
 * applications import nothing from {@code io.winlimit.internal} or the packages under it (as
 * with Lettuce's {@code io.lettuce.core.internal}). Here: the cache of rejections
 * ({@code cacheRejections}), shared by the Redis and memory limiters.
 */
package io.winlimit.internal;
