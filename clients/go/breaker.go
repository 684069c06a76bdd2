package winlimit

import (
	"context"
	"errors"
	"strings"
	"sync"

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
type breaker struct {
	mu                  sync.Mutex
	failures            int
	openMs, maxOpenMs   float64
	state               BreakerState
	count               int
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
func (b *breaker) admit(now float64) (admission, []transition) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	switch {
	case b.state == BreakerClosed:
		return admission{send: true, id: b.nextID}, nil
	case b.state == BreakerOpen && now >= b.openUntil:
		b.state, b.probing, b.probeID = BreakerHalfOpen, true, b.nextID
		return admission{send: true, probe: true, id: b.nextID}, []transition{{BreakerHalfOpen, "open_elapsed"}}
	}
	return admission{id: b.nextID}, nil
}

// done records the end of an admitted call at now: failed says it counts as a failure.
func (b *breaker) done(a admission, failed bool, now float64) []transition {
	b.mu.Lock()
	defer b.mu.Unlock()
	if a.probe && b.state == BreakerHalfOpen && a.id == b.probeID {
		b.probing = false
		if failed {
			b.lastOpen = min(b.lastOpen*2, b.maxOpenMs)
			b.state, b.openUntil = BreakerOpen, now+b.lastOpen
			return []transition{{BreakerOpen, "probe_failed"}}
		}
		b.state, b.count = BreakerClosed, 0
		return []transition{{BreakerClosed, "probe_succeeded"}}
	}
	if b.state != BreakerClosed {
		return nil // a call sent before the breaker opened changes nothing now
	}
	if !failed {
		b.count = 0
		return nil
	}
	b.count++
	if b.count < b.failures {
		return nil
	}
	b.count, b.lastOpen = 0, b.openMs
	b.state, b.openUntil = BreakerOpen, now+b.openMs
	return []transition{{BreakerOpen, "failures"}}
}

func (b *breaker) snapshot() (BreakerState, float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state, b.openUntil
}
