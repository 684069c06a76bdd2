package io.winlimit.spring.boot.internal.web.servlet;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import org.springframework.web.filter.OncePerRequestFilter;

import io.winlimit.spring.boot.internal.web.RequestGuard;
import io.winlimit.spring.boot.internal.web.Verdict;

/**
 * Gives a request's units back when its status shows it does not count (a policy's
 * {@code count: failures} or {@code successes}), before the response leaves: when the handler
 * starts the body, sends an error or flushes, or else when it returns. The client's next
 * request then sees the refund. A request whose handler threw out of the servlet is a failure.
 */
public final class SettlingFilter extends OncePerRequestFilter {
    private final RequestGuard guard;

    /**
     * A filter settling each limited request through {@code guard}.
     *
     * @param guard the request guard
     */
    public SettlingFilter(RequestGuard guard) {
        this.guard = guard;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Settling settling = new Settling(request, response, guard);
        try {
            chain.doFilter(request, settling);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            settling.settle(null);
            throw e;
        }
        settling.settle(settling.getStatus());
    }

    /** The response, settling the request's verdicts the first time its status is final. */
    private static final class Settling extends HttpServletResponseWrapper {
        private final HttpServletRequest request;
        private final RequestGuard guard;
        private final AtomicBoolean settled = new AtomicBoolean();

        Settling(HttpServletRequest request, HttpServletResponse response, RequestGuard guard) {
            super(response);
            this.request = request;
            this.guard = guard;
        }

        void settle(Integer status) {
            if (!settled.compareAndSet(false, true)) {
                return;
            }
            Object held = request.getAttribute(RateLimitMethodInterceptor.VERDICTS);
            if (held instanceof List<?> verdicts) {
                for (Object verdict : verdicts) {
                    guard.settle((Verdict) verdict, status).join();
                }
            }
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            settle(getStatus());
            return super.getOutputStream();
        }

        @Override
        public PrintWriter getWriter() throws IOException {
            settle(getStatus());
            return super.getWriter();
        }

        @Override
        public void flushBuffer() throws IOException {
            settle(getStatus());
            super.flushBuffer();
        }

        @Override
        public void sendError(int sc) throws IOException {
            settle(sc);
            super.sendError(sc);
        }

        @Override
        public void sendError(int sc, String msg) throws IOException {
            settle(sc);
            super.sendError(sc, msg);
        }

        @Override
        public void sendRedirect(String location) throws IOException {
            settle(302);
            super.sendRedirect(location);
        }
    }
}
