package io.winlimit.spring.boot.internal.web.reactive;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.cglib.core.DefaultNamingPolicy;
import org.springframework.cglib.proxy.Enhancer;
import org.springframework.cglib.proxy.Factory;
import org.springframework.cglib.proxy.MethodInterceptor;
import org.springframework.cglib.proxy.MethodProxy;
import org.springframework.objenesis.SpringObjenesis;
import org.springframework.util.ClassUtils;

/**
 * Stand-ins for controllers: for each request, an instance of a subclass of the controller's
 * class that, called as the handler, keeps the arguments Spring resolved and runs nothing.
 * WebFlux calls a handler method synchronously once its arguments are resolved, so the only
 * way to wait for Redis between the two without blocking is to let Spring call a stand-in,
 * decide, then call the controller with the same arguments. The subclass is made once per
 * class; a stand-in is one allocation (no constructor runs).
 */
final class StandIns {
    private static final SpringObjenesis OBJENESIS = new SpringObjenesis();

    private final Map<Class<?>, Class<?>> classes = new ConcurrentHashMap<>();

    /** The arguments a stand-in was called with, and the handler method it stands in for. */
    static final class Captured implements MethodInterceptor {
        private final Method handler;
        private volatile Object[] arguments;

        Captured(Method handler) {
            this.handler = handler;
        }

        /** The arguments as Spring resolved them; null when Spring never called the handler
         * (its arguments failed to resolve, and an exception handler answered). */
        Object[] arguments() {
            return arguments;
        }

        @Override
        public Object intercept(Object standIn, Method method, Object[] args, MethodProxy proxy) {
            if (method.getName().equals(handler.getName()) && Arrays.equals(method.getParameterTypes(), handler.getParameterTypes())) {
                arguments = args;
                return nothing(method.getReturnType());
            }
            return switch (method.getName()) {
                case "hashCode" -> System.identityHashCode(standIn);
                case "equals" -> standIn == args[0];
                case "toString" -> "winlimit stand-in for " + handler;
                default -> throw new IllegalStateException("a winlimit stand-in runs only " + handler + ", not " + method);
            };
        }

        private static Object nothing(Class<?> type) {
            return type.isPrimitive() && type != void.class ? Array.get(Array.newInstance(type, 1), 0) : null;
        }
    }

    /** A stand-in for {@code bean}, whose handler method records into {@code captured}. */
    Object of(Object bean, Captured captured) {
        Class<?> type = classes.computeIfAbsent(ClassUtils.getUserClass(bean), StandIns::subclass);
        Factory standIn = (Factory) OBJENESIS.newInstance(type);
        standIn.setCallback(0, captured);
        return standIn;
    }

    private static Class<?> subclass(Class<?> type) {
        Enhancer enhancer = new Enhancer();
        enhancer.setSuperclass(type);
        enhancer.setUseFactory(true);
        enhancer.setCallbackType(MethodInterceptor.class);
        enhancer.setClassLoader(type.getClassLoader());
        enhancer.setNamingPolicy(new DefaultNamingPolicy() {
            @Override
            protected String getTag() {
                return "ByWinlimitStandIn";
            }
        });
        return enhancer.createClass();
    }
}
