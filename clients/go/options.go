package winlimit

import (
	"log/slog"
	"time"
)

// Option configures a Limiter (New).
type Option func(*options)

type options struct {
	name      string
	backend   Backend
	block     *time.Duration
	cacheSize int
	breaker   breakerOptions
	fallback  *MemoryLimiter
	timeout   time.Duration
	observer  Observer
	logger    *slog.Logger
	err       error // the first bad option's, returned by New
}

func evaluate(opts []Option) (options, error) {
	o := options{name: DefaultName, backend: Auto, timeout: DefaultTimeout, logger: slog.Default(), breaker: breakerOptions{
		enabled: true, failures: DefaultBreakerFailures, openMs: DefaultBreakerOpenMs,
	}}
	for _, opt := range opts {
		opt(&o)
	}
	o.checkBreaker()
	return o, o.err
}

// WithName names the limiter's policies in the header fields (DefaultName by default; with
// several windows "<name>-60s" and so on). Name overrides it for one call.
func WithName(name string) Option {
	return func(o *options) {
		o.name = name
		if err := checkName(name); err != nil && o.err == nil {
			o.err = err
		}
	}
}

// WithBackend chooses the edition of winlimit that answers (Auto by default).
func WithBackend(b Backend) Option {
	return func(o *options) {
		switch b {
		case Auto, Module, Functions, Scripts:
			o.backend = b
		default:
			if o.err == nil {
				o.err = argError("backend", `must be "auto", "module", "functions" or "scripts", not %q`, string(b))
			}
		}
	}
}

// WithBlock is the Block of every recording call that gives none of its own (not of peeks,
// nor of refunds, where the server refuses it).
func WithBlock(d time.Duration) Option {
	return func(o *options) { o.block = &d }
}

// WithRejectionCache answers a command line just rejected from memory until its RetryAfter
// ends, without Redis (at most size lines; DefaultCacheSize is a good size). It is wrong in
// one case: a key deleted or evicted by someone else is still refused until the entry ends.
func WithRejectionCache(size int) Option {
	return func(o *options) {
		if size < 1 && o.err == nil {
			o.err = argError("cache size", "must be at least 1, not %d", size)
		}
		o.cacheSize = size
	}
}

// DefaultPrefix is the middleware's prefix to its keys.
const DefaultPrefix = "rl:"

// DefaultTimeout is how long a call may take before it counts as failed.
const DefaultTimeout = time.Second

// DefaultShadowLogKeys is how many keys shadow mode's warnings remember.
const DefaultShadowLogKeys = 10000

type breakerOptions struct {
	enabled           bool
	failures          int
	openMs, maxOpenMs float64
}

// WithBreaker sets the circuit breaker: it opens after failures consecutive Redis failures,
// sends nothing for open (doubling on each failed probe up to WithBreakerMaxOpen's cap: by
// default 30 s, or open when longer), then lets one probe call through. On by default (3,
// 1 s). Durations are whole milliseconds.
func WithBreaker(failures int, open time.Duration) Option {
	return func(o *options) {
		openMs, err := ms("breaker open", open)
		switch {
		case o.err != nil:
		case failures < 1:
			o.err = argError("breaker failures", "must be at least 1, not %d", failures)
		case err != nil:
			o.err = err
		case openMs < 1:
			o.err = argError("breaker open", "must be at least 1 ms, not %v", open)
		}
		o.breaker.enabled, o.breaker.failures, o.breaker.openMs = true, failures, float64(openMs)
	}
}

// WithBreakerMaxOpen caps the breaker's open period, which doubles on each failed probe; it
// must be at least the open period (DefaultBreakerMaxOpen ms, or the open period when longer,
// if not set).
func WithBreakerMaxOpen(maxOpen time.Duration) Option {
	return func(o *options) {
		maxMs, err := ms("breaker max open", maxOpen)
		switch {
		case o.err != nil:
		case err != nil:
			o.err = err
		case maxMs < 1:
			o.err = argError("breaker max open", "must be at least 1 ms, not %v", maxOpen)
		}
		o.breaker.maxOpenMs = float64(maxMs)
	}
}

// checkBreaker fills in the cap left unset and checks it against the open period, once every
// option has been applied (they may come in any order).
func (o *options) checkBreaker() {
	b := &o.breaker
	if b.maxOpenMs == 0 {
		b.maxOpenMs = max(DefaultBreakerMaxOpen, b.openMs)
	} else if b.maxOpenMs < b.openMs && o.err == nil {
		o.err = argError("breaker max open", "must be at least the open period %v, not %v",
			time.Duration(b.openMs)*time.Millisecond, time.Duration(b.maxOpenMs)*time.Millisecond)
	}
}

// WithoutBreaker turns the circuit breaker off: every call goes to Redis.
func WithoutBreaker() Option {
	return func(o *options) { o.breaker.enabled = false }
}

func (o *options) newBreaker() *breaker {
	if !o.breaker.enabled {
		return nil
	}
	return newBreaker(o.breaker.failures, o.breaker.openMs, o.breaker.maxOpenMs)
}

// WithFallback decides in memory while Redis fails or the breaker is open: the very call
// that would have gone to Redis, with its Cost, Refund and Block. Its decisions have
// Backend "memory".
func WithFallback(m *MemoryLimiter) Option { return func(o *options) { o.fallback = m } }

// WithTimeout bounds each call to Redis (DefaultTimeout); a call with no answer by then
// counts as failed. 0 waits as long as the go-redis client does.
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d < 0 && o.err == nil {
			o.err = argError("timeout", "must not be negative, not %v", d)
		}
		o.timeout = d
	}
}

// WithObserver reports every decision this limiter makes (once, with its true outcome,
// whether the application, httplimit or grpclimit asked), every failure, call time and
// breaker change to obs (the winprom package's Collector is one).
func WithObserver(obs Observer) Option { return func(o *options) { o.observer = obs } }

// WithLogger writes the breaker's warning when it opens and its info line when it closes
// (slog.Default() by default).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Observer is told what a limiter decides: metrics hang here without winlimit importing a
// metrics library.
type Observer interface {
	// Decided is a decision (shadow: a rejection a middleware's shadow mode lets through).
	Decided(d Decision, shadow bool)
	// Failed is a call that got no decision, for the call's first policy.
	Failed(policy string)
	// Timed is the time of a call to a backend ("redis" or "memory").
	Timed(backend string, d time.Duration)
	// BreakerChanged is a breaker's transition, with its cause.
	BreakerChanged(limiter string, to BreakerState, cause string)
}

// DefaultIPv6Subnet is the prefix a middleware keys an IPv6 client by: one host usually owns
// a /64 and could otherwise take a new address per request.
const DefaultIPv6Subnet = 64
