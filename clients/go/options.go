package winlimit

import "time"

// Option configures a Limiter (New).
type Option func(*options)

type options struct {
	name      string
	backend   Backend
	block     *time.Duration
	cacheSize int
	err       error
}

func evaluate(opts []Option) options {
	o := options{name: DefaultName, backend: Auto}
	for _, opt := range opts {
		opt(&o)
	}
	return o
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
