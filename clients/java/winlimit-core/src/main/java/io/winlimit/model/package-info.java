/**
 * The values a winlimit call is made of and answered with, shared by every other package: the
 * options ({@code SlideOptions}, {@code FixedOptions}, {@code GcraOptions}), {@code Window},
 * {@code Decision} and its {@code Policy} and header fields, the backends, and the errors. It
 * names no other winlimit package, so none of them depends on another through it.
 */
package io.winlimit.model;
