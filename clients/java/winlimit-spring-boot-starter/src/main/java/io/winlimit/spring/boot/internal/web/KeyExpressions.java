package io.winlimit.spring.boot.internal.web;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * The SpEL keys of @RateLimit methods, evaluated over the handler method's arguments as Spring
 * resolved them (so a {@code @RequestBody}, a {@code Principal} or an
 * {@code @AuthenticationPrincipal} is there as the handler gets it): {@code #name} is the
 * argument of that name, {@code #request} the request, {@code @bean} a bean. Each expression
 * is parsed once per method, with the method's parameter names, and kept: a request only
 * evaluates it.
 */
public final class KeyExpressions {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final Set<String> BUILT_IN = Set.of("request", "root", "this");

    private final BeanResolver beans;
    private final ParameterNameDiscoverer discoverer = new DefaultParameterNameDiscoverer();
    private final Map<Method, Map<String, Parsed>> parsed = new ConcurrentHashMap<>();
    private final AtomicLong parses = new AtomicLong();

    /**
     * Expressions that may name beans of {@code beanFactory} ({@code @bean}).
     *
     * @param beanFactory the application's bean factory
     */
    public KeyExpressions(BeanFactory beanFactory) {
        this.beans = beanFactory == null ? null : new BeanFactoryResolver(beanFactory);
    }

    /** An expression of a method, with the method's parameter names (null without -parameters). */
    private record Parsed(Expression expression, String[] names) {}

    /**
     * The key {@code text} gives for a call of {@code method} with {@code arguments}; null
     * leaves the request unlimited.
     *
     * @param method the handler method
     * @param text the SpEL expression
     * @param request the request, {@code #request}
     * @param arguments the method's arguments, as Spring resolved them
     * @return the key, or null
     */
    public String key(Method method, String text, Object request, Object[] arguments) {
        Parsed p = parsed(method, text);
        StandardEvaluationContext context = new StandardEvaluationContext();
        if (beans != null) {
            context.setBeanResolver(beans);
        }
        context.setVariable("request", request);
        for (int i = 0; p.names() != null && i < p.names().length && i < arguments.length; i++) {
            context.setVariable(p.names()[i], arguments[i]);
        }
        Object value = p.expression().getValue(context);
        return value == null ? null : value.toString();
    }

    /**
     * Checks {@code text} for {@code method} at startup: it parses, and every {@code #name}
     * is {@code #request} or an argument of the method.
     *
     * @param method the handler method
     * @param text the SpEL expression
     * @throws IllegalStateException naming the method and the bad part, which stops the start
     */
    public void check(Method method, String text) {
        Parsed p = parsed(method, text);
        Set<String> known = new TreeSet<>(BUILT_IN);
        if (p.names() != null) {
            known.addAll(Arrays.asList(p.names()));
        }
        Set<String> used = new TreeSet<>();
        if (p.expression() instanceof SpelExpression spel) {
            variables(spel.getAST(), used);
        }
        used.removeAll(known);
        if (!used.isEmpty()) {
            throw new IllegalStateException("@RateLimit key " + text + " on " + describe(method) + " names "
                    + String.join(", ", used.stream().map(n -> "#" + n).toList()) + ", which is not an argument of the"
                    + " method nor #request; the arguments are " + known.stream().filter(n -> !BUILT_IN.contains(n)).toList()
                    + (p.names() == null ? " (compile with -parameters to name them)" : ""));
        }
    }

    /**
     * How many expressions were parsed so far: one per method and expression, however many
     * requests evaluated them.
     *
     * @return the count, for tests of the cache
     */
    public long parses() {
        return parses.get();
    }

    private Parsed parsed(Method method, String text) {
        return parsed.computeIfAbsent(method, m -> new ConcurrentHashMap<>())
                .computeIfAbsent(text, t -> parse(method, t));
    }

    private Parsed parse(Method method, String text) {
        parses.incrementAndGet();
        try {
            return new Parsed(PARSER.parseExpression(text), discoverer.getParameterNames(method));
        } catch (ParseException e) {
            throw new IllegalStateException("@RateLimit key " + text + " on " + describe(method) + " is not a SpEL expression: "
                    + e.getMessage(), e);
        }
    }

    private static void variables(SpelNode node, Set<String> out) {
        if (node instanceof VariableReference) {
            out.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            variables(node.getChild(i), out);
        }
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }
}
