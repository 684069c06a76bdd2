/**
 * Not API: the starter's implementation, which may change in any release without notice;
 * applications import nothing from {@code io.winlimit.spring.boot.internal} or the packages
 * under it.
 */
package io.winlimit.spring.boot.internal;
