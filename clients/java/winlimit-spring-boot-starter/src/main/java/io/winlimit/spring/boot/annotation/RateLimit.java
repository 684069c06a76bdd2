package io.winlimit.spring.boot.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
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
 * nothing); the key is the policy's SpEL expression, or {@link #key()} here, evaluated over the
 * handler's arguments as Spring resolved them. Every name and expression is checked when the
 * application starts. A method may carry several: each is decided in the order written, the
 * first that rejects ends the request, and the response carries the fields of every one decided.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(RateLimit.List.class)
public @interface RateLimit {

    /**
     * The policy's name under {@code winlimit.policies}.
     *
     * @return the policy's name
     */
    String value();

    /**
     * A SpEL key for this method instead of the policy's: {@code #name} is the handler
     * method's argument of that name as Spring resolved it (a path variable, a request body,
     * a {@code Principal}, ...), {@code #request} the request, {@code @bean} a bean. Empty: the
     * policy's key.
     *
     * @return the expression, or empty
     */
    String key() default "";

    /** Several {@code @RateLimit}s on one method or class (written for you by the compiler). */
    @Target({ElementType.METHOD, ElementType.TYPE})
    @Retention(RetentionPolicy.RUNTIME)
    @Documented
    @interface List {
        /**
         * The annotations, in the order written.
         *
         * @return the annotations
         */
        RateLimit[] value();
    }
}
