/**
 * Public API: {@code ReactiveRejectionHandler}, a bean that answers a rejected WebFlux
 * request otherwise than 429 "Too Many Requests".
 */
package io.winlimit.spring.boot.web.reactive;
