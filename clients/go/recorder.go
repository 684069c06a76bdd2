package winlimit

import (
	"context"
	"sync"
	"time"

	"github.com/winlimit/winlimit/clients/go/internal/hooks"
)

// Deciding is what a middleware needs of a limiter: Limiter and MemoryLimiter have it.
type Deciding interface {
	Slide(ctx context.Context, key string, windows []Window, opts ...CallOption) (Decision, error)
	Fixed(ctx context.Context, key string, window time.Duration, limit int64, opts ...CallOption) (Decision, error)
	GCRA(ctx context.Context, key string, period time.Duration, limit int64, opts ...CallOption) (Decision, error)
	Reset(ctx context.Context, key string) (bool, error)
}

var (
	_ Deciding = (*Limiter)(nil)
	_ Deciding = (*MemoryLimiter)(nil)
	_ Deciding = (*recorder)(nil)
)

// The middlewares reach the recorder through hooks, so it is not part of this package's API.
func init() {
	hooks.NewRecorder = func(limiter any, block *time.Duration) (any, hooks.Recorder) {
		r := &recorder{limiter: limiter.(Deciding), block: block}
		return r, r
	}
}

// recorder passes calls on to a limiter (with a Block when a call gives none and block is
// set) and remembers the recording ones, so that Refund can give their units back: how a
// middleware counts only failures or only successes. One recorder serves one request.
type recorder struct {
	limiter Deciding
	block   *time.Duration
	mu      sync.Mutex
	calls   []func(ctx context.Context) error
}

// recording reads opts: whether the call records, its cost, the options a refund repeats
// (the same limit and shape: Bucket, Align, Burst, Name), and opts with the block added.
func (r *recorder) recording(opts []CallOption) (bool, int64, []CallOption, []CallOption) {
	cost, records, hasBlock := int64(1), true, false
	var kept []CallOption
	for _, o := range opts {
		switch o.kind {
		case optPeek, optRefund:
			records = false
		case optCost:
			cost = o.n
		case optBlock:
			hasBlock = true
		default:
			if _, shapes := keptByRefund()[o.kind]; shapes {
				kept = append(kept, o)
			}
		}
	}
	if records && !hasBlock && r.block != nil {
		opts = append(append([]CallOption(nil), opts...), Block(*r.block))
	}
	return records && cost > 0, cost, kept, opts
}

func (r *recorder) remember(f func(ctx context.Context) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, f)
}

// Reset is the limiter's.
func (r *recorder) Reset(ctx context.Context, key string) (bool, error) {
	return r.limiter.Reset(ctx, key)
}

// Refund gives back the units of every accepted recording call; the first error, if any.
func (r *recorder) Refund(ctx context.Context) error {
	r.mu.Lock()
	calls := r.calls
	r.calls = nil
	r.mu.Unlock()
	var first error
	for _, f := range calls {
		if err := f(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}
