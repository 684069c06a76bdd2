package winlimit

import (
	"context"
	"time"
)

// gcraCommand is WINLIMIT.GCRA: the bucket's theoretical arrival time.
var gcraCommand = defineCommand(commandSpec{name: "WINLIMIT.GCRA", method: "GCRA", state: stateTat, shape: []optionKind{optBurst}})

func buildGCRA(key string, period time.Duration, limit int64, o callOptions) (call, error) {
	periodMs, err := ms("period", period)
	if err != nil {
		return call{}, err
	}
	args, policies := newOneWindowCall()
	args = append(args, gcraCommand.word(o.peek), key, periodMs, limit)
	capacity := limit
	if o.hasBurst {
		capacity = o.burst
		args = append(args, "BURST", o.burst)
	}
	if args, err = o.tail(args); err != nil {
		return call{}, err
	}
	// The bucket refills limit units per period: empty to full takes capacity/limit periods,
	// rounded up. A limit <= 0 is refused by the server; the policy is then never read.
	refill := periodMs
	if limit > 0 {
		refill = mulCeilDiv(capacity, periodMs, limit)
	}
	policies[0] = Policy{Name: o.name, Quota: capacity, Window: time.Duration(refill) * time.Millisecond}
	return call{args: args, policies: policies, peek: o.peek, refund: o.hasRefund}, nil
}

// GCRA checks and records against a bucket refilled by limit units per period
// (WINLIMIT.GCRA). Options: Burst, Cost, Refund, Block, Peek, Name.
func (l *Limiter) GCRA(ctx context.Context, key string, period time.Duration, limit int64, opts ...CallOption) (Decision, error) {
	o, err := l.collect(gcraCommand.method, opts, gcraCommand.options()...)
	if err != nil {
		return Decision{}, err
	}
	c, err := buildGCRA(key, period, limit, o)
	if err != nil {
		return Decision{}, err
	}
	return l.decide(ctx, &c)
}

// GCRA is Limiter.GCRA in memory.
func (m *MemoryLimiter) GCRA(_ context.Context, key string, period time.Duration, limit int64, opts ...CallOption) (Decision, error) {
	o, err := m.collect(gcraCommand.method, opts, gcraCommand.options()...)
	if err != nil {
		return Decision{}, err
	}
	c, err := buildGCRA(key, period, limit, o)
	if err != nil {
		return Decision{}, err
	}
	return m.decide(&c)
}

// GCRA is the limiter's, recorded.
func (r *recorder) GCRA(ctx context.Context, key string, period time.Duration, limit int64, opts ...CallOption) (Decision, error) {
	records, cost, kept, opts := r.recording(opts)
	d, err := r.limiter.GCRA(ctx, key, period, limit, opts...)
	if records && err == nil && d.Allowed {
		r.remember(func(ctx context.Context) error {
			_, err := r.limiter.GCRA(ctx, key, period, limit, append(kept, Refund(cost))...)
			return err
		})
	}
	return d, err
}
