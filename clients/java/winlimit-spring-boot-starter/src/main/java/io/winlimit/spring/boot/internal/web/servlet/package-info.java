/**
 * Not API: @RateLimit on Spring MVC: the proxy and interceptor around @RateLimit methods,
 * the resolver of rejections, and the filter that settles refunds.
 */
package io.winlimit.spring.boot.internal.web.servlet;
