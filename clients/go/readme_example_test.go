package winlimit_test

// The examples clients/go/README.md shows (each block stands word for word in one of them,
// scripts/check_snippets.py checks): run by go test against a redis-server with the module,
// started from the repository's .cache for the example and stopped by its PID after it.

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/internal/redistest"
)

// startRedis starts a redis-server with the module for one example; stop it by its Close.
func startRedis() *redistest.Server {
	srv, err := redistest.Start("redis-7.0", true)
	if err != nil {
		panic(err)
	}
	return srv
}

// One call instead of a ZADD/ZREMRANGEBYSCORE/ZCARD/EXPIRE pipeline: at most 5 replies a
// minute per user.
func ExampleNew() {
	srv := startRedis()
	defer srv.Close()
	addr, ctx := srv.Addr(), context.Background()

	err := func() error {
		rdb := redis.NewClient(&redis.Options{Addr: addr}) // addr: "127.0.0.1:6379", say
		limiter, err := winlimit.New(rdb)
		if err != nil {
			return err // a bad option, refused here (*winlimit.ArgumentError)
		}

		for i := 0; i < 6; i++ {
			d, err := limiter.Slide(ctx, "hist:test:reply", []winlimit.Window{{Length: time.Minute, Limit: 5}})
			if err != nil {
				return err // Redis failed: errors.Is(err, winlimit.ErrModuleNotLoaded), a timeout, ...
			}
			if !d.Allowed {
				// d.RetryAfter: when a retry can succeed (-1ms: never, the cost is above the limit)
				fmt.Println("rejected; retry within a minute:", d.RetryAfter > 0 && d.RetryAfter <= time.Minute)
			}
		}
		return nil
	}()
	fmt.Println(err)
	// Output:
	// rejected; retry within a minute: true
	// <nil>
}

// The options of a call.
func ExampleLimiter_Slide_options() {
	srv := startRedis()
	defer srv.Close()
	limiter, _ := winlimit.New(redis.NewClient(&redis.Options{Addr: srv.Addr()}))
	ctx, key, windows := context.Background(), "api:42", []winlimit.Window{{Length: time.Minute, Limit: 100}}

	limiter.Slide(ctx, key, []winlimit.Window{{time.Second, 10}, {time.Hour, 1000}})   // several windows, one call
	limiter.Slide(ctx, "feed:42", windows, winlimit.Bucket(time.Second))                // bounded memory: a key of its own
	limiter.Fixed(ctx, "login:10.0.0.7", 15*time.Minute, 5, winlimit.Align())
	limiter.GCRA(ctx, "upload:42", time.Minute, 100, winlimit.Burst(10), winlimit.Cost(3))
	limiter.Fixed(ctx, "login:42", time.Minute, 5, winlimit.Peek())                     // ask, record nothing
	limiter.Fixed(ctx, "login:42", time.Minute, 5, winlimit.Refund(1))                  // give a unit back
	limiter.Fixed(ctx, "login:42", time.Minute, 5, winlimit.Block(time.Hour))           // a rejection blocks for an hour
	limiter.Reset(ctx, key)

	d, err := limiter.Fixed(ctx, "login:42", time.Minute, 5, winlimit.Peek())
	fmt.Println(d.Remaining, err)
	// Output: 4 <nil>
}

// While Redis fails, the memory fallback decides the very call.
func ExampleWithFallback() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}) // nothing listens there
	limiter, err := winlimit.New(rdb, winlimit.WithFallback(winlimit.NewMemory()))
	if err != nil {
		panic(err)
	}
	d, err := limiter.Slide(context.Background(), "k", []winlimit.Window{{Length: time.Minute, Limit: 3}})
	fmt.Println(d.Allowed, d.Remaining, err)
	// Output: true 2 <nil>
}

// A cluster client: commands carry their key position, so it routes them by key.
func ExampleNew_cluster() {
	cluster, err := redistest.StartCluster("redis-7.0", 3, true)
	if err != nil {
		panic(err)
	}
	defer cluster.Close()
	addr := cluster.Addrs()[0]

	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}, ContextTimeoutEnabled: true}) // addr: "10.0.0.1:6379"
	limiter, err := winlimit.New(rdb)

	d, _ := limiter.Slide(context.Background(), "api:42", []winlimit.Window{{Length: time.Minute, Limit: 3}})
	fmt.Println(d.Remaining, err)
	// Output: 2 <nil>
}
