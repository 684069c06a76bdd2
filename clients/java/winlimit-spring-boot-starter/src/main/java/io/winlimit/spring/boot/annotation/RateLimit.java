package io.winlimit.spring.boot.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits the requests of a controller method (or of every handler method of a class) by the
 * named policy of {@code winlimit.policies}:
 *
 * <pre>
 * &#64;RateLimit("sms")
 * &#64;PostMapping("/sms/{userName}")
 * String send(&#64;PathVariable String userName) { ... }
 * </pre>
 *
 * The policy name is a literal (a name computed per request would silently fall back to
 * nothing); the key is the policy's SpEL expression, or {@link #key()} here. Every name and
 * expression is checked when the application starts.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimit {

    /** The policy's name under {@code winlimit.policies}. */
    String value();

    /** A SpEL key for this method instead of the policy's: {@code #name} is the handler
     * method's argument of that name (a path variable, request parameter or header),
     * {@code #request} the request. Empty: the policy's key. */
    String key() default "";
}
