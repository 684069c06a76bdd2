/**
 * Public API: {@code RateLimiterUnavailableException}, a request that Redis failing
 * leaves undecided under a policy that fails closed (answered 503).
 */
package io.winlimit.spring.boot.web;
