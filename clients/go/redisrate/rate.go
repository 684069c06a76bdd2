// Package redisrate is go-redis/redis_rate's API (NewLimiter, Allow, AllowN, Reset, Limit,
// PerSecond, PerMinute, PerHour, Result) backed by WINLIMIT.GCRA: switching is a change of
// import path, and the decisions become exact integer GCRA on the server's clock.
//
// What differs, on purpose:
//   - AllowAtMost is left out: granting part of a request needs a read and a write that
//     WINLIMIT.GCRA does not make in one atomic call, and an approximation would not be exact.
//   - Remaining is exact: one call at 10 a second leaves 9 (redis_rate's float clock can
//     leave 8).
//   - Keys are "winlimit:rate:" + key (redis_rate's "rate:" keys hold its float format).
package redisrate

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	winlimit "github.com/winlimit/winlimit/clients/go"
)

const redisPrefix = "winlimit:rate:"

// Limit is Rate requests per Period, with bursts of up to Burst.
type Limit struct {
	Rate   int
	Burst  int
	Period time.Duration
}

func (l Limit) String() string {
	return fmt.Sprintf("%d req/%s (burst %d)", l.Rate, fmtDur(l.Period), l.Burst)
}

// IsZero reports a Limit with no field set.
func (l Limit) IsZero() bool { return l == Limit{} }

func fmtDur(d time.Duration) string {
	switch d {
	case time.Second:
		return "s"
	case time.Minute:
		return "m"
	case time.Hour:
		return "h"
	}
	return d.String()
}

// PerSecond is rate requests a second, bursts of rate.
func PerSecond(rate int) Limit { return Limit{Rate: rate, Period: time.Second, Burst: rate} }

// PerMinute is rate requests a minute, bursts of rate.
func PerMinute(rate int) Limit { return Limit{Rate: rate, Period: time.Minute, Burst: rate} }

// PerHour is rate requests an hour, bursts of rate.
func PerHour(rate int) Limit { return Limit{Rate: rate, Period: time.Hour, Burst: rate} }

// Limiter limits requests by key.
type Limiter struct {
	wl *winlimit.Limiter
}

// NewLimiter takes any go-redis client: *redis.Client, *redis.ClusterClient, *redis.Ring
// or a failover client. Like redis_rate's, it has no breaker and waits as long as the
// client does.
func NewLimiter(rdb redis.UniversalClient) *Limiter {
	// These options are fixed and valid: New cannot refuse them.
	wl, _ := winlimit.New(rdb, winlimit.WithoutBreaker(), winlimit.WithTimeout(0), winlimit.WithName("redis_rate"))
	return &Limiter{wl: wl}
}

// Result is a decision in redis_rate's terms.
type Result struct {
	// Limit is the limit that was used to obtain this result.
	Limit Limit
	// Allowed is the number of events that may happen at time now: n, or 0.
	Allowed int
	// Remaining is the maximum number of requests that could be permitted instantaneously
	// for this key given the current state.
	Remaining int
	// RetryAfter is the time until the next request will be permitted: -1 when the limit
	// is not exceeded. A request larger than Burst is never permitted; as redis_rate does,
	// its RetryAfter is then the time after which it would still be refused.
	RetryAfter time.Duration
	// ResetAfter is the time until the bucket is full again.
	ResetAfter time.Duration
}

// Allow is AllowN(ctx, key, limit, 1).
func (l Limiter) Allow(ctx context.Context, key string, limit Limit) (*Result, error) {
	return l.AllowN(ctx, key, limit, 1)
}

// AllowN reports whether n events may happen at time now; n 0 asks without recording.
func (l Limiter) AllowN(ctx context.Context, key string, limit Limit, n int) (*Result, error) {
	if n < 0 {
		return nil, fmt.Errorf("redisrate: n must not be negative, not %d", n)
	}
	opts := []winlimit.CallOption{winlimit.Burst(int64(limit.Burst))}
	if n == 0 {
		opts = append(opts, winlimit.Peek())
	} else {
		opts = append(opts, winlimit.Cost(int64(n)))
	}
	d, err := l.wl.GCRA(ctx, redisPrefix+key, limit.Period, int64(limit.Rate), opts...)
	if err != nil {
		return nil, err
	}
	res := &Result{Limit: limit, Remaining: int(d.Remaining), RetryAfter: -1, ResetAfter: d.ResetAfter}
	switch {
	case n == 0:
	case d.Allowed:
		res.Allowed = n
	case d.RetryAfter > 0:
		res.RetryAfter = d.RetryAfter
	default:
		res.RetryAfter = beyondBurst(limit, n, d.ResetAfter)
	}
	return res, nil
}

// beyondBurst is redis_rate's RetryAfter for n events that never fit the burst: the time
// until the bucket is full (resetAfter) plus the emission time of the n-Burst events beyond
// it, after which the request would still be refused.
func beyondBurst(limit Limit, n int, resetAfter time.Duration) time.Duration {
	if limit.Rate <= 0 || n <= limit.Burst {
		return -1
	}
	return resetAfter + time.Duration(int64(limit.Period)*int64(n-limit.Burst)/int64(limit.Rate))
}

// Reset gets a key back to its full bucket.
func (l *Limiter) Reset(ctx context.Context, key string) error {
	_, err := l.wl.Reset(ctx, redisPrefix+key)
	return err
}
