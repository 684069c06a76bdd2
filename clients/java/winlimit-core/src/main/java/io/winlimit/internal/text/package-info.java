/**
 * Not API: the argument checks every limiter and the model share ({@code Args}: whole
 * milliseconds, positive limits, printable names) and the JSON text of the header fields
 * ({@code Json}). They import nothing of winlimit's, so the model may use them without a cycle.
 */
package io.winlimit.internal.text;
