/**
 * Not API: the Lua library built into the jar ({@code winlimit.lua}, from lua/), its loading
 * as Functions or scripts, and the choice of backend per server ({@code Backends}).
 */
package io.winlimit.internal.library;
