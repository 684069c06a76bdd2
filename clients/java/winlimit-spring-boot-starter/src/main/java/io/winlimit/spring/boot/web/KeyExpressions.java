package io.winlimit.spring.boot.web;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.annotation.SynthesizingMethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.core.convert.support.DefaultConversionService;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;

/**
 * The SpEL keys of @RateLimit methods: {@code #name} is the handler method's argument of that
 * name, {@code #request} the request, {@code @bean} a bean. The key is decided before the
 * handler runs (a rejected request never reaches it), so an argument is what the request says
 * of it: its path variable, request header ({@code @RequestHeader}) or request parameter, by
 * its annotation's name or its own, converted to the parameter's type. A request body is not
 * read yet: an expression naming a {@code @RequestBody} argument is refused at startup. Each
 * expression is parsed once per method.
 */
public final class KeyExpressions {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final Set<String> BUILT_IN = Set.of("request", "root", "this");

    private final BeanFactory beanFactory;
    private final ParameterNameDiscoverer names = new DefaultParameterNameDiscoverer();
    private final ConversionService conversion = DefaultConversionService.getSharedInstance();
    private final Map<Method, Map<String, Expression>> parsed = new ConcurrentHashMap<>();

    public KeyExpressions(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** What a request says of a handler argument. */
    public interface Arguments {
        /** The path variable of that name, or null. */
        String pathVariable(String name);

        /** The first request header of that name, or null. */
        String header(String name);

        /** The first request (query) parameter of that name, or null. */
        String parameter(String name);
    }

    /** The key {@code text} gives for a request to {@code method}; null leaves it unlimited. */
    public String key(Method method, String text, Object request, Arguments arguments) {
        Expression expression = parsed.computeIfAbsent(method, m -> new ConcurrentHashMap<>())
                .computeIfAbsent(text, t -> parse(method, t));
        StandardEvaluationContext context = new StandardEvaluationContext();
        if (beanFactory != null) {
            context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        }
        context.setVariable("request", request);
        String[] parameterNames = names.getParameterNames(method);
        for (int i = 0; parameterNames != null && i < parameterNames.length; i++) {
            MethodParameter parameter = new SynthesizingMethodParameter(method, i);
            context.setVariable(parameterNames[i], argument(parameter, parameterNames[i], arguments));
        }
        Object value = expression.getValue(context);
        return value == null ? null : value.toString();
    }

    /** Checks {@code text} for {@code method} at startup: it parses, and every {@code #name}
     * is {@code #request} or an argument the request gives before the handler runs. */
    public void check(Method method, String text) {
        Expression expression = parse(method, text);
        String[] parameterNames = names.getParameterNames(method);
        Set<String> known = new TreeSet<>(BUILT_IN);
        for (int i = 0; parameterNames != null && i < parameterNames.length; i++) {
            MethodParameter parameter = new SynthesizingMethodParameter(method, i);
            if (!parameter.hasParameterAnnotation(RequestBody.class)) {
                known.add(parameterNames[i]);
            }
        }
        Set<String> used = new TreeSet<>();
        if (expression instanceof SpelExpression spel) {
            variables(spel.getAST(), used);
        }
        used.removeAll(known);
        if (!used.isEmpty()) {
            throw new IllegalStateException("@RateLimit key " + text + " on " + describe(method) + " names "
                    + String.join(", ", used.stream().map(n -> "#" + n).toList()) + ", which is not an argument the request gives"
                    + " before the handler runs (its path variables, headers and parameters; not a @RequestBody), nor #request;"
                    + " the arguments are " + known.stream().filter(n -> !BUILT_IN.contains(n)).toList()
                    + (parameterNames == null ? " (compile with -parameters to name them)" : ""));
        }
        parsed.computeIfAbsent(method, m -> new ConcurrentHashMap<>()).put(text, expression);
    }

    private Object argument(MethodParameter parameter, String name, Arguments arguments) {
        String text = null;
        PathVariable path = parameter.getParameterAnnotation(PathVariable.class);
        RequestHeader header = parameter.getParameterAnnotation(RequestHeader.class);
        RequestParam param = parameter.getParameterAnnotation(RequestParam.class);
        if (path != null) {
            text = arguments.pathVariable(named(path.name(), name));
        } else if (header != null) {
            text = arguments.header(named(header.name(), name));
        } else if (param != null) {
            text = arguments.parameter(named(param.name(), name));
        } else if (!parameter.hasParameterAnnotation(RequestBody.class)) {
            text = arguments.pathVariable(name);
            text = text != null ? text : arguments.parameter(name);
        }
        if (text == null || parameter.getParameterType() == String.class) {
            return text;
        }
        TypeDescriptor target = new TypeDescriptor(parameter);
        if (!conversion.canConvert(TypeDescriptor.valueOf(String.class), target)) {
            return text;
        }
        try {
            return conversion.convert(text, TypeDescriptor.valueOf(String.class), target);
        } catch (RuntimeException e) {
            return text; // the handler's own binding answers 400 for it
        }
    }

    private static String named(String given, String fallback) {
        return given == null || given.isEmpty() ? fallback : given;
    }

    private static Expression parse(Method method, String text) {
        try {
            return PARSER.parseExpression(text);
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
