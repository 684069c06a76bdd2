package winlimit

import (
	"context"
	"time"
)

// fixedCommand is WINLIMIT.FIXED: a counter per fixed window.
var fixedCommand = defineCommand(commandSpec{name: "WINLIMIT.FIXED", method: "Fixed", state: stateCounter, shape: []optionKind{optAlign}})

func buildFixed(key string, window time.Duration, limit int64, o callOptions) (call, error) {
	length, err := ms("window", window)
	if err != nil {
		return call{}, err
	}
	args, policies := newOneWindowCall()
	args, err = o.tail(append(args, fixedCommand.word(o.peek), key, length, limit))
	if err != nil {
		return call{}, err
	}
	if o.align {
		args = append(args, "ALIGN")
	}
	policies[0] = Policy{Name: o.name, Quota: limit, Window: window}
	return call{args: args, policies: policies, peek: o.peek, refund: o.hasRefund}, nil
}

// Fixed checks and records against a fixed window of limit units (WINLIMIT.FIXED). Options:
// Cost, Refund, Block, Align, Peek, Name.
func (l *Limiter) Fixed(ctx context.Context, key string, window time.Duration, limit int64, opts ...CallOption) (Decision, error) {
	o, err := l.collect(fixedCommand.method, opts, fixedCommand.options()...)
	if err != nil {
		return Decision{}, err
	}
	c, err := buildFixed(key, window, limit, o)
	if err != nil {
		return Decision{}, err
	}
	return l.decide(ctx, &c)
}

// Fixed is Limiter.Fixed in memory.
func (m *MemoryLimiter) Fixed(_ context.Context, key string, window time.Duration, limit int64, opts ...CallOption) (Decision, error) {
	o, err := m.collect(fixedCommand.method, opts, fixedCommand.options()...)
	if err != nil {
		return Decision{}, err
	}
	c, err := buildFixed(key, window, limit, o)
	if err != nil {
		return Decision{}, err
	}
	return m.decide(&c)
}

// Fixed is the limiter's, recorded.
func (r *recorder) Fixed(ctx context.Context, key string, window time.Duration, limit int64, opts ...CallOption) (Decision, error) {
	records, cost, kept, opts := r.recording(opts)
	d, err := r.limiter.Fixed(ctx, key, window, limit, opts...)
	if records && err == nil && d.Allowed {
		r.remember(func(ctx context.Context) error {
			_, err := r.limiter.Fixed(ctx, key, window, limit, append(kept, Refund(cost))...)
			return err
		})
	}
	return d, err
}
