/**
 * Not API: the command lines of WINLIMIT.SLIDE, FIXED and GCRA built from the options
 * ({@code Commands}, {@code Call}) and the parsing of their replies into a
 * {@code Decision} ({@code Replies}): the one place that knows the wire format.
 */
package io.winlimit.internal.protocol;
