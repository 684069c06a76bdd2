/**
 * The starter's auto-configurations, one per concern, listed in
 * {@code AutoConfiguration.imports}, and the typed {@code winlimit.*} properties
 * ({@code WinlimitProperties}, {@code PolicyProperties}). Public as Boot's conventions need
 * (exclusion by class, ordering); applications configure them through properties.
 */
package io.winlimit.spring.boot.autoconfigure;
