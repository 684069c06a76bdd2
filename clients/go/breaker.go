package winlimit

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// BreakerState is a circuit breaker's state, valued as winlimit_breaker_state reports it.
type BreakerState int

// The breaker's states.
const (
	BreakerClosed   BreakerState = 0 // calls go to Redis
	BreakerHalfOpen BreakerState = 1 // one probe call is in flight
	BreakerOpen     BreakerState = 2 // no call is sent
)

// String names the state as the shared cases do.
func (s BreakerState) String() string {
	return [...]string{"closed", "half_open", "open"}[s]
}

// The breaker's defaults (clients/spec/breaker.json).
const (
	DefaultBreakerFailures = 3
	DefaultBreakerOpenMs   = 1000
	DefaultBreakerMaxOpen  = 30000
)

// ErrUnavailable is matched by the error of a call the breaker answered at once, without a
// fallback: Redis failed recently and is not asked until the open period ends.
var ErrUnavailable = errors.New("winlimit: Redis unavailable: the circuit breaker is open")

// countedKinds are the server error replies that count as failures: the server is not
// serving, which is not the caller's doing.
var countedKinds = map[string]bool{
	"LOADING": true, "BUSY": true, "MASTERDOWN": true, "TRYAGAIN": true, "CLUSTERDOWN": true, "READONLY": true,
}

// countsAsFailure reports whether the breaker counts err, from a call to Redis, as Redis
// failing (a connection error, a timeout, or a LOADING, BUSY, MASTERDOWN, TRYAGAIN,
// CLUSTERDOWN or READONLY reply), and the fallback may decide instead; not the caller's
// mistake (WRONGTYPE, a bad argument) nor a cancelled request (clients/spec/breaker.json).
func countsAsFailure(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var ae *ArgumentError
	if errors.As(err, &ae) {
		return false
	}
	var re redis.Error
	if errors.As(err, &re) {
		kind, _, _ := strings.Cut(re.Error(), " ")
		return countedKinds[kind]
	}
	return true // a connection error, a timeout, a closed client
}

// transition is one change of state and its cause.
type transition struct {
	to    BreakerState
	cause string
}

// breaker is one circuit breaker (per limiter, per cluster node): closed, open for an open
// period that doubles on each failed probe, half-open while one probe runs.
//
// Every change is made under mu; state and count are atomics besides so that the closed
// path (a call admitted and answered while closed, no failure counted) reads them without
// the mutex: that path runs on every call.
type breaker struct {
	mu                  sync.Mutex
	failures            int
	openMs, maxOpenMs   float64
	state               atomic.Int32 // a BreakerState
	count               atomic.Int64 // failures in a row while closed
	openUntil, lastOpen float64
	probing             bool
	probeID             uint64
	nextID              uint64
}

type admission struct {
	send  bool // to Redis (closed, or the probe)
	probe bool
	id    uint64
}

func newBreaker(failures int, openMs, maxOpenMs float64) *breaker {
	return &breaker{failures: failures, openMs: openMs, maxOpenMs: maxOpenMs}
}

// admit decides what a call arriving at now does, and the transitions that made.
// A closed breaker admits without the mutex: only a probe's id is ever compared.
func (b *breaker) admit(now float64) (admission, []transition) {
	if b.current() == BreakerClosed {
		return admission{send: true}, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	switch state := b.current(); {
	case state == BreakerClosed:
		return admission{send: true}, nil
	case state == BreakerOpen && now >= b.openUntil:
		b.probing, b.probeID = true, b.nextID
		b.state.Store(int32(BreakerHalfOpen))
		return admission{send: true, probe: true, id: b.nextID}, []transition{{BreakerHalfOpen, "open_elapsed"}}
	}
	return admission{id: b.nextID}, nil
}

func (b *breaker) current() BreakerState { return BreakerState(b.state.Load()) }

// done records the end of an admitted call at now: failed says it counts as a failure. A
// success while closed with no failure counted changes nothing, so it takes no mutex.
func (b *breaker) done(a admission, failed bool, now float64) []transition {
	if !a.probe && !failed && b.current() == BreakerClosed && b.count.Load() == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.doneLocked(a, failed, now)
}

func (b *breaker) doneLocked(a admission, failed bool, now float64) []transition {
	if a.probe && b.current() == BreakerHalfOpen && a.id == b.probeID {
		b.probing = false
		if failed {
			b.lastOpen = min(b.lastOpen*2, b.maxOpenMs)
			b.openUntil = now + b.lastOpen
			b.state.Store(int32(BreakerOpen))
			return []transition{{BreakerOpen, "probe_failed"}}
		}
		b.count.Store(0)
		b.state.Store(int32(BreakerClosed))
		return []transition{{BreakerClosed, "probe_succeeded"}}
	}
	if b.current() != BreakerClosed {
		return nil // a call sent before the breaker opened changes nothing now
	}
	if !failed {
		b.count.Store(0)
		return nil
	}
	if b.count.Add(1) < int64(b.failures) {
		return nil
	}
	b.count.Store(0)
	b.lastOpen, b.openUntil = b.openMs, now+b.openMs
	b.state.Store(int32(BreakerOpen))
	return []transition{{BreakerOpen, "failures"}}
}

func (b *breaker) snapshot() (BreakerState, float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.current(), b.openUntil
}
