/**
 * Not published: an application built from the installed jars alone (check.sh), which
 * compiles against the public API only and so shows that API is enough for one call.
 */
package io.winlimit.consumer;
