package migration_test

import (
	"context"
	"fmt"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/clients/go/internal/redistest"
)

// redis_rate itself, the page's before: a plain Redis, no module. Its float arithmetic
// leaves 8 where winlimit's exact GCRA leaves 9 (redisrate's ExampleNewLimiter).
func Example_redisRateBefore() {
	srv, err := redistest.Start("redis-7.0", false)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})

	// --8<-- [start:before]
	// import "github.com/go-redis/redis_rate/v10"
	limiter := redis_rate.NewLimiter(rdb)
	res, err := limiter.Allow(ctx, "project:123", redis_rate.PerSecond(10))
	// res.Allowed, res.Remaining, res.RetryAfter, res.ResetAfter
	// --8<-- [end:before]
	fmt.Println(res.Allowed, res.Remaining, err)
	// Output: 1 8 <nil>
}
