package winlimit

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/clients/go/internal/hooks"
)

// Limiter makes decisions in Redis: one method per winlimit command, each one atomic call.
// It is safe for concurrent use.
type Limiter struct {
	rdb   redis.UniversalClient
	opts  options
	nodes nodes
	cache *rejectionCache
	// ctxTimeouts: the client bounds its I/O by the context's deadline
	// (ContextTimeoutEnabled), so the timeout needs no goroutine of its own.
	ctxTimeouts bool
	// timed: a plain client's copy (go-redis WithTimeout: the same pool and hooks) whose
	// socket reads and writes stop at the limiter's timeout; nil for other clients.
	timed *redis.Client
	// single is where every call goes when the client is not a cluster or a ring.
	single route
}

// New gives a limiter over the application's client (plain, cluster, failover or ring). It
// does no I/O: the backend is detected on each server's first call. A bad option is refused
// here, with its ArgumentError.
func New(rdb redis.UniversalClient, opts ...Option) (*Limiter, error) {
	o, err := evaluate(opts)
	if err != nil {
		return nil, err
	}
	l := &Limiter{rdb: rdb, opts: o, nodes: nodes{choice: o.backend, byName: map[string]*node{}, breaker: o.newBreaker}}
	l.ctxTimeouts = honorsContext(rdb)
	if c, ok := rdb.(*redis.Client); ok && c != nil && o.timeout > 0 {
		l.timed = c.WithTimeout(o.timeout)
	}
	l.single = route{client: l.rdb, server: l.rdb, node: l.nodes.get("")}
	if l.timed != nil {
		l.single.client, l.single.server = l.timed, l.timed
	}
	if o.cacheSize > 0 {
		l.cache = newRejectionCache(o.cacheSize, monotonicMs)
	}
	return l, nil
}

// Reset deletes the key, whatever its method, and forgets every cached rejection for it, so
// its next call starts afresh; true if a key was removed.
func (l *Limiter) Reset(ctx context.Context, key string) (bool, error) {
	removed, err := l.rdb.Del(ctx, key).Result()
	if l.cache != nil {
		l.cache.forget(key)
	}
	return removed > 0, err
}

func (l *Limiter) collect(method string, opts []CallOption, allowed ...optionKind) (callOptions, error) {
	return collect(method, l.opts.name, l.opts.block, opts, allowed...)
}

func (l *Limiter) decide(ctx context.Context, c *call) (Decision, error) {
	if l.cache != nil {
		if five, ok := l.cache.lookup(c); ok {
			d := fromFive(five, c.policies, "")
			d.Backend, d.Cached = l.cache.backendOf(c), true
			l.observeDecided(ctx, d)
			return d, nil
		}
	}
	r, err := l.route(ctx, c.key())
	if err != nil {
		if countsAsFailure(err) {
			return l.fallBack(ctx, c, err)
		}
		return l.failed(c, err)
	}
	var a admission
	if b := r.node.breaker; b != nil {
		var changes []transition
		a, changes = b.admit(monotonicMs())
		l.changed(changes)
		if !a.send {
			return l.fallBack(ctx, c, ErrUnavailable)
		}
	}
	var started time.Time
	if l.opts.observer != nil { // the clock is read only for someone who asks the time
		started = time.Now()
	}
	reply, backend, err := l.call(ctx, c, r)
	if b := r.node.breaker; b != nil {
		l.changed(b.done(a, countsAsFailure(err), monotonicMs()))
	}
	if err != nil {
		if countsAsFailure(err) {
			return l.fallBack(ctx, c, err)
		}
		return l.failed(c, err)
	}
	d, err := decisionFrom(reply, c.policies, string(backend))
	if err != nil {
		return l.failed(c, err)
	}
	if l.cache != nil {
		l.cache.remember(c, d.five(), d.Backend)
	}
	if l.opts.observer != nil {
		l.opts.observer.Timed("redis", time.Since(started))
	}
	l.observeDecided(ctx, d)
	return d, nil
}

// call has the call answered within the limiter's timeout. A plain client's call (a
// *redis.Client, failover ones too) is sent through its WithTimeout copy, whose socket reads
// and writes stop at the timeout (or the context's deadline, if earlier and the client has
// ContextTimeoutEnabled): no goroutine, no timer. A cluster or ring client with
// ContextTimeoutEnabled stops at a context deadline set here; any other stops only at its
// ReadTimeout, so the call then runs on a goroutine of its own and is abandoned (never
// replayed) when the time is up, which costs a goroutine hand-off per call.
func (l *Limiter) call(ctx context.Context, c *call, r route) (any, Backend, error) {
	if l.opts.timeout == 0 {
		return l.answer(ctx, c, r)
	}
	if l.timed != nil {
		reply, backend, err := l.answer(ctx, c, r)
		if err != nil && isTimeout(err) {
			err = &TimeoutError{Waited: l.opts.timeout}
		}
		return reply, backend, err
	}
	ctx, cancel := context.WithTimeout(ctx, l.opts.timeout)
	defer cancel()
	if l.ctxTimeouts {
		reply, backend, err := l.answer(ctx, c, r)
		// The socket's deadline is the context's: its timeout may come a hair before the
		// context's own timer.
		deadline, _ := ctx.Deadline()
		if err != nil && (ctx.Err() != nil || isTimeout(err) && time.Until(deadline) < time.Millisecond) {
			err = &TimeoutError{Waited: l.opts.timeout}
		}
		return reply, backend, err
	}
	type result struct {
		reply   any
		backend Backend
		err     error
	}
	done := make(chan result, 1)
	owned := *c // the goroutine's own copy, so that the caller's call needs no heap
	go func() {
		reply, backend, err := l.answer(ctx, &owned, r)
		done <- result{reply, backend, err}
	}()
	select {
	case res := <-done:
		return res.reply, res.backend, res.err
	case <-ctx.Done():
		return nil, "", &TimeoutError{Waited: l.opts.timeout}
	}
}

// isTimeout reports a network timeout. Its own function, so that the error variable
// errors.As needs escapes only on a failed call, not on every call.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// honorsContext reports a client whose I/O stops at the context's deadline.
func honorsContext(rdb redis.UniversalClient) bool {
	switch c := rdb.(type) {
	case *redis.Client:
		return c != nil && c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c != nil && c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return c != nil && c.Options().ContextTimeoutEnabled
	}
	return false
}

// fallBack decides c in memory when the limiter has a fallback; else cause is the error.
func (l *Limiter) fallBack(ctx context.Context, c *call, cause error) (Decision, error) {
	if l.opts.fallback == nil {
		return l.failed(c, cause)
	}
	started := time.Now()
	d, err := l.opts.fallback.decide(c)
	if err != nil {
		return l.failed(c, err)
	}
	if l.opts.observer != nil {
		l.opts.observer.Timed("memory", time.Since(started))
	}
	l.observeDecided(ctx, d)
	return d, nil
}

func (l *Limiter) failed(c *call, err error) (Decision, error) {
	if l.opts.observer != nil {
		l.opts.observer.Failed(c.policies[0].Name)
	}
	return Decision{}, translate(err)
}

// observeDecided reports d once, where it is made: a rejection under a middleware's shadow
// mode (which lets it through) as a shadow rejection.
func (l *Limiter) observeDecided(ctx context.Context, d Decision) {
	if l.opts.observer != nil {
		l.opts.observer.Decided(d, !d.Allowed && hooks.IsShadow(ctx))
	}
}

// changed logs and reports the breaker's transitions: a warning when it opens after
// failures, an info line when it closes; none per request while it is open.
func (l *Limiter) changed(changes []transition) {
	for _, tr := range changes {
		switch tr.cause {
		case "failures":
			l.opts.logger.Warn("winlimit: Redis is failing: circuit breaker open, no call is sent for a while",
				"limiter", l.opts.name, "open_ms", l.opts.breaker.openMs, "fallback", l.opts.fallback != nil)
		case "probe_succeeded":
			l.opts.logger.Info("winlimit: Redis answers again: circuit breaker closed", "limiter", l.opts.name)
		}
		if l.opts.observer != nil {
			l.opts.observer.BreakerChanged(l.opts.name, tr.to, tr.cause)
		}
	}
}

// breakerState is the state of the breaker of the server serving key (BreakerClosed when
// the breaker is off).
func (l *Limiter) breakerState(ctx context.Context, key string) BreakerState {
	r, err := l.route(ctx, key)
	if err != nil || r.node.breaker == nil {
		return BreakerClosed
	}
	state, _ := r.node.breaker.snapshot()
	return state
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
	return l.single, nil
}
