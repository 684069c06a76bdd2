package redisrate_test

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/clients/go/internal/redistest"
	"github.com/winlimit/winlimit/clients/go/redisrate"
)

// redis_rate's API on winlimit's exact GCRA: change the import path, keep the calls. Shown in
// clients/go/README.md, "Migrating from redis_rate".
func ExampleNewLimiter() {
	srv, err := redistest.Start("redis-7.0", true)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})

	// --8<-- [start:after]
	// import "github.com/winlimit/winlimit/clients/go/redisrate", was github.com/go-redis/redis_rate/v10
	limiter := redisrate.NewLimiter(rdb)
	res, err := limiter.Allow(ctx, "project:123", redisrate.PerSecond(10))
	// res.Allowed, res.Remaining, res.RetryAfter, res.ResetAfter: as redis_rate's
	// --8<-- [end:after]
	fmt.Println(res.Allowed, res.Remaining, err)
	// Output: 1 9 <nil>
}
