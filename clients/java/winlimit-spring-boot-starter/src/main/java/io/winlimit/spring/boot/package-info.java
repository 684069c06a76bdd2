/**
 * Public API of the Spring Boot starter: {@code RateLimits} (the named policies of
 * {@code winlimit.policies}, for calls from code), {@code RatePolicy}, {@code Algorithm},
 * {@code Count}, {@code RateLimitExceededException} and {@code WinlimitMeters} (what counts
 * decisions; the Micrometer one is auto-configured).
 */
package io.winlimit.spring.boot;
