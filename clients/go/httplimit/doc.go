// Package httplimit is winlimit's net/http middleware: a Middleware whose Handler method is
// a func(http.Handler) http.Handler, so it works with the standard mux, chi and gorilla.
//
//	mw, err := httplimit.New(limiter, httplimit.Fixed(time.Minute, 100))
//	r.Use(mw.Handler) // chi
//
// A check of its own (a func(ctx, l, key, r)) chooses limits per request.
//
// A request is keyed by its client's address (an IPv6 one by its /64), prefixed "rl:". An
// accepted request gets the rate-limit fields; a rejected one 429 with Retry-After. When
// Redis fails the middleware answers 503 (or lets the request through with FailOpen); the
// limiter's own fallback and circuit breaker (winlimit.WithFallback) decide first.
package httplimit
