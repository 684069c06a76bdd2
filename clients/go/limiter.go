package winlimit

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limiter makes decisions in Redis: one method per winlimit command, each one atomic call.
// It is safe for concurrent use.
type Limiter struct {
	rdb   redis.UniversalClient
	opts  options
	nodes nodes
	cache *rejectionCache
}

// New gives a limiter over the application's client (plain, cluster, failover or ring). It
// does no I/O: the backend is detected on each server's first call. A bad option makes every
// call return its ArgumentError.
func New(rdb redis.UniversalClient, opts ...Option) *Limiter {
	o := evaluate(opts)
	l := &Limiter{rdb: rdb, opts: o, nodes: nodes{choice: o.backend, byName: map[string]*node{}}}
	if o.cacheSize > 0 {
		l.cache = newRejectionCache(o.cacheSize, monotonicMs)
	}
	return l
}

// Slide checks and records cost units against every window: at most Limit units in any
// Length (WINLIMIT.SLIDE). Options: Cost, Refund, Block, Bucket, Peek, Name.
func (l *Limiter) Slide(ctx context.Context, key string, windows []Window, opts ...CallOption) (Decision, error) {
	o, err := l.collect("Slide", opts, optCost, optRefund, optBlock, optBucket, optPeek, optName)
	if err != nil {
		return Decision{}, err
	}
	c, err := buildSlide(key, windows, o)
	if err != nil {
		return Decision{}, err
	}
	return l.decide(ctx, &c)
}

// Fixed checks and records against a fixed window of limit units (WINLIMIT.FIXED). Options:
// Cost, Refund, Block, Align, Peek, Name.
func (l *Limiter) Fixed(ctx context.Context, key string, window time.Duration, limit int64, opts ...CallOption) (Decision, error) {
	o, err := l.collect("Fixed", opts, optCost, optRefund, optBlock, optAlign, optPeek, optName)
	if err != nil {
		return Decision{}, err
	}
	c, err := buildFixed(key, window, limit, o)
	if err != nil {
		return Decision{}, err
	}
	return l.decide(ctx, &c)
}

// GCRA checks and records against a bucket refilled by limit units per period
// (WINLIMIT.GCRA). Options: Burst, Cost, Refund, Block, Peek, Name.
func (l *Limiter) GCRA(ctx context.Context, key string, period time.Duration, limit int64, opts ...CallOption) (Decision, error) {
	o, err := l.collect("GCRA", opts, optBurst, optCost, optRefund, optBlock, optPeek, optName)
	if err != nil {
		return Decision{}, err
	}
	c, err := buildGCRA(key, period, limit, o)
	if err != nil {
		return Decision{}, err
	}
	return l.decide(ctx, &c)
}

// Reset deletes the key, whatever its method, and forgets every cached rejection for it, so
// its next call starts afresh; true if a key was removed.
func (l *Limiter) Reset(ctx context.Context, key string) (bool, error) {
	if l.opts.err != nil {
		return false, l.opts.err
	}
	removed, err := l.rdb.Del(ctx, key).Result()
	if l.cache != nil {
		l.cache.forget(key)
	}
	return removed > 0, err
}

func (l *Limiter) collect(method string, opts []CallOption, allowed ...optionKind) (callOptions, error) {
	if l.opts.err != nil {
		return callOptions{}, l.opts.err
	}
	return collect(method, l.opts.name, l.opts.block, opts, allowed...)
}

func (l *Limiter) decide(ctx context.Context, c *call) (Decision, error) {
	if l.cache != nil {
		if five, ok := l.cache.lookup(c); ok {
			d := fromFive(five, c.policies, "")
			d.Backend, d.Cached = l.cache.backendOf(c), true
			return d, nil
		}
	}
	r, err := l.route(ctx, c.key())
	if err != nil {
		return Decision{}, err
	}
	reply, backend, err := l.answer(ctx, c, r)
	if err != nil {
		return Decision{}, err
	}
	d, err := decisionFrom(reply, c.policies, string(backend))
	if err == nil && l.cache != nil {
		l.cache.remember(c, d.five(), d.Backend)
	}
	return d, err
}

// route finds the server serving key: a cluster's primary for its slot, a ring's shard.
func (l *Limiter) route(ctx context.Context, key string) (route, error) {
	switch c := l.rdb.(type) {
	case *redis.ClusterClient:
		server, err := c.MasterForKey(ctx, key)
		if err != nil {
			return route{}, err
		}
		return route{client: l.rdb, server: server, node: l.nodes.get(server.Options().Addr)}, nil
	case *redis.Ring:
		server, err := c.GetShardClientForKey(key)
		if err != nil {
			return route{}, err
		}
		return route{client: l.rdb, server: server, node: l.nodes.get(server.Options().Addr)}, nil
	}
	return route{client: l.rdb, server: l.rdb, node: l.nodes.get("")}, nil
}
