/**
 * Public API: {@code WinlimitRateLimiter}, the {@code RequestRateLimiter} filter's rate
 * limiter, its per-route {@code Config}, and its auto-configuration. The rest is its
 * implementation (package-private where it can be).
 */
package io.winlimit.spring.cloud.gateway;
