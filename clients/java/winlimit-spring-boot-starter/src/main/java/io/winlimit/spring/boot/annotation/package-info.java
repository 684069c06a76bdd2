/**
 * Public API: {@code @RateLimit}, repeatable, on controller methods or classes.
 */
package io.winlimit.spring.boot.annotation;
