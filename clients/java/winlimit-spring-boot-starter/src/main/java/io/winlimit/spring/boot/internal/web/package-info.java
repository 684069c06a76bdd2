/**
 * Not API: what the MVC and WebFlux limiting share: the @RateLimit methods' limits and their
 * SpEL keys parsed once per method ({@code RateLimitedHandlers}, {@code KeyExpressions}), and
 * the check of a request's limits and the verdicts on them ({@code RequestGuard},
 * clients/spec/middleware.json).
 */
package io.winlimit.spring.boot.internal.web;
