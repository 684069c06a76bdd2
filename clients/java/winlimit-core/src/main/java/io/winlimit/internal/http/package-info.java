/**
 * Not API: what the Spring middleware and the gateway share with the other clients'
 * middleware: the client address key with IPv6 subnets ({@code IpKeys},
 * clients/spec/keys.json), the middleware defaults, and the shadow mode's log.
 */
package io.winlimit.internal.http;
