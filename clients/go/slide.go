package winlimit

import "context"

// slideCommand is WINLIMIT.SLIDE: a sliding window log (a ring of buckets with Bucket).
var slideCommand = defineCommand(commandSpec{name: "WINLIMIT.SLIDE", method: "Slide", state: stateLog, shape: []optionKind{optBucket}})

func buildSlide(key string, windows []Window, o callOptions) (call, error) {
	if len(windows) == 0 {
		return call{}, argError("windows", "Slide needs at least one window")
	}
	args := make([]any, 0, 2+2*len(windows)+6)
	args = append(args, slideCommand.word(o.peek), key)
	policies := make([]Policy, len(windows))
	for i, w := range windows {
		length, err := ms("window", w.Length)
		if err != nil {
			return call{}, err
		}
		args = append(args, length, w.Limit)
		policies[i] = Policy{Name: o.name, Quota: w.Limit, Window: w.Length}
		if len(windows) > 1 {
			policies[i].Name = o.name + "-" + windowLabel(w.Length)
		}
	}
	args, err := o.tail(args)
	if err != nil {
		return call{}, err
	}
	if o.hasBucket {
		b, err := ms("bucket", o.bucket)
		if err != nil {
			return call{}, err
		}
		args = append(args, "BUCKET", b)
	}
	return call{args: args, policies: policies, peek: o.peek, refund: o.hasRefund}, nil
}

// Slide checks and records cost units against every window: at most Limit units in any
// Length (WINLIMIT.SLIDE). Options: Cost, Refund, Block, Bucket, Peek, Name.
func (l *Limiter) Slide(ctx context.Context, key string, windows []Window, opts ...CallOption) (Decision, error) {
	o, err := l.collect(slideCommand.method, opts, slideCommand.options()...)
	if err != nil {
		return Decision{}, err
	}
	c, err := buildSlide(key, windows, o)
	if err != nil {
		return Decision{}, err
	}
	return l.decide(ctx, &c)
}

// Slide is Limiter.Slide in memory.
func (m *MemoryLimiter) Slide(_ context.Context, key string, windows []Window, opts ...CallOption) (Decision, error) {
	o, err := m.collect(slideCommand.method, opts, slideCommand.options()...)
	if err != nil {
		return Decision{}, err
	}
	c, err := buildSlide(key, windows, o)
	if err != nil {
		return Decision{}, err
	}
	return m.decide(&c)
}

// Slide is the limiter's, recorded.
func (r *recorder) Slide(ctx context.Context, key string, windows []Window, opts ...CallOption) (Decision, error) {
	records, cost, kept, opts := r.recording(opts)
	d, err := r.limiter.Slide(ctx, key, windows, opts...)
	if records && err == nil && d.Allowed {
		r.remember(func(ctx context.Context) error {
			_, err := r.limiter.Slide(ctx, key, windows, append(kept, Refund(cost))...)
			return err
		})
	}
	return d, err
}
