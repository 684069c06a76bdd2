/**
 * Public API: the circuit breaker's options ({@code BreakerOptions}, given to
 * {@code LimiterConfig.breaker}) and {@code CircuitBreaker}, its state and transitions as a
 * {@code LimiterListener} sees them (clients/spec/breaker.json).
 */
package io.winlimit.breaker;
