/**
 * Public API: the values a winlimit call is made of and answered with, shared by every other
 * package: the options ({@code SlideOptions}, {@code FixedOptions}, {@code GcraOptions}),
 * {@code Window}, {@code Decision} and its {@code Policy} and header fields, the backends,
 * the command table ({@code Command}) and the errors. It names no other winlimit package, so
 * none of them depends on another through it. For that reason the two helpers every package
 * shares live here too and are not API: {@code Args} (checks of user arguments) and
 * {@code Json} (the JSON quoting of keys and names, as the other clients write it).
 */
package io.winlimit.model;
