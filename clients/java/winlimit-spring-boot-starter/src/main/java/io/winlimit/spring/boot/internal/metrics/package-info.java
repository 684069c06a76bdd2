/**
 * Not API: the Micrometer meters of decisions, calls and breakers, registered once each.
 */
package io.winlimit.spring.boot.internal.metrics;
