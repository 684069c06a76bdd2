/**
 * Not API: a limiter's breakers, one per server or cluster node ({@code Breakers}), and
 * which errors count as Redis failing ({@code Failures}, clients/spec/breaker.json).
 */
package io.winlimit.internal.breaker;
