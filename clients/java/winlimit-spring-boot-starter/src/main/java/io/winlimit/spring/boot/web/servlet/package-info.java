/**
 * Public API: {@code ServletRejectionHandler}, a bean that answers a rejected Spring MVC
 * request otherwise than 429 "Too Many Requests".
 */
package io.winlimit.spring.boot.web.servlet;
