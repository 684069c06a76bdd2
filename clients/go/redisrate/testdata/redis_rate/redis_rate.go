// Package redis_rate stands in for github.com/go-redis/redis_rate/v10 so that redis_rate's
// own rate_test.go, copied here unchanged from the module cache by
// scripts/redis-rate-tests.sh, runs on redisrate. Only AllowAtMost, which redisrate leaves
// out, answers an error; its tests are skipped.
package redis_rate

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/clients/go/redisrate"
)

// The types and constructors redis_rate's tests use, as redisrate has them.
type (
	Limit  = redisrate.Limit
	Result = redisrate.Result
)

var (
	PerSecond = redisrate.PerSecond
	PerMinute = redisrate.PerMinute
	PerHour   = redisrate.PerHour
)

// Limiter is redisrate's, with redis_rate's AllowAtMost refused.
type Limiter struct{ *redisrate.Limiter }

// NewLimiter is redisrate.NewLimiter.
func NewLimiter(rdb redis.UniversalClient) *Limiter { return &Limiter{redisrate.NewLimiter(rdb)} }

// AllowAtMost is left out of redisrate (see its package doc).
func (l *Limiter) AllowAtMost(context.Context, string, Limit, int) (*Result, error) {
	return nil, errors.New("redisrate leaves AllowAtMost out")
}
