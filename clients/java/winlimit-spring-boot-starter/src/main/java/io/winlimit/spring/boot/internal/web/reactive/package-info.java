/**
 * Not API: @RateLimit on WebFlux: the handler adapter that decides over the resolved
 * arguments without blocking, and the handler of {@code RateLimitExceededException}.
 */
package io.winlimit.spring.boot.internal.web.reactive;
