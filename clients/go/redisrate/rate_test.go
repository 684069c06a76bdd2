package redisrate_test

// What redisrate adds to redis_rate's contract, on real servers. redis_rate's own test file
// runs unchanged on this package too, from the module cache: scripts/redis-rate-tests.sh.

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/clients/go/internal/redistest"
	"github.com/winlimit/winlimit/clients/go/redisrate"
)

var servers = map[string]*redistest.Server{}

func TestMain(m *testing.M) {
	code := 1
	defer func() { os.Exit(code) }()
	for name, module := range map[string]bool{"module": true, "redis-6.2": false} {
		image := "redis-7.0"
		if !module {
			image = name
		}
		srv, err := redistest.Start(image, module)
		if err != nil {
			panic(err)
		}
		defer srv.Close()
		servers[name] = srv
	}
	code = m.Run()
}

// eachServer runs f with a limiter over a ring, as redis_rate's tests make theirs, on the
// module and on the scripts (Redis 6.2).
func eachServer(t *testing.T, f func(t *testing.T, l *redisrate.Limiter)) {
	for name, srv := range servers {
		t.Run(name, func(t *testing.T) {
			ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"server0": srv.Addr()}})
			defer ring.Close()
			if err := ring.FlushDB(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
			f(t, redisrate.NewLimiter(ring))
		})
	}
}

type want struct {
	allowed, remaining int
	retryAfter         time.Duration // -1 exactly, or within delta
	resetAfter         time.Duration
	retryDelta         time.Duration
	resetDelta         time.Duration
}

func check(t *testing.T, res *redisrate.Result, err error, w want) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if res.Allowed != w.allowed || res.Remaining != w.remaining {
		t.Fatalf("allowed %d remaining %d, not %d %d", res.Allowed, res.Remaining, w.allowed, w.remaining)
	}
	if d := res.RetryAfter - w.retryAfter; d > w.retryDelta || -d > w.retryDelta {
		t.Fatalf("retry after %v, not %v ± %v", res.RetryAfter, w.retryAfter, w.retryDelta)
	}
	if d := res.ResetAfter - w.resetAfter; d > w.resetDelta || -d > w.resetDelta {
		t.Fatalf("reset after %v, not %v ± %v", res.ResetAfter, w.resetAfter, w.resetDelta)
	}
}

func TestLimitString(t *testing.T) {
	limit := redisrate.PerSecond(10)
	if limit.String() != "10 req/s (burst 10)" || limit.IsZero() || !(redisrate.Limit{}).IsZero() {
		t.Fatal(limit.String())
	}
	if redisrate.PerMinute(5).String() != "5 req/m (burst 5)" || redisrate.PerHour(5).Period != time.Hour {
		t.Fatal(redisrate.PerMinute(5))
	}
}

func TestARequestLargerThanTheBurstSaysWhenItWouldStillBeRefused(t *testing.T) {
	eachServer(t, func(t *testing.T, l *redisrate.Limiter) {
		// A full bucket of 10 at 10 a second: 1000 events need 990 more emission intervals
		// of 100 ms, so after 99 s they would still be refused; never -1, which reads "allowed".
		res, err := l.AllowN(context.Background(), "k", redisrate.PerSecond(10), 1000)
		if err != nil {
			t.Fatal(err)
		}
		if res.Allowed != 0 || res.Remaining != 10 || res.RetryAfter != 99*time.Second || res.ResetAfter != 0 {
			t.Fatalf("%+v", res)
		}
	})
}

func TestARejectionSaysWhenTheNextRequestFits(t *testing.T) {
	eachServer(t, func(t *testing.T, l *redisrate.Limiter) {
		ctx, limit := context.Background(), redisrate.PerMinute(2)
		for i := 0; i < 2; i++ {
			if res, err := l.Allow(ctx, "k", limit); err != nil || res.Allowed != 1 {
				t.Fatal(res, err)
			}
		}
		res, err := l.Allow(ctx, "k", limit)
		check(t, res, err, want{allowed: 0, remaining: 0, retryAfter: 30 * time.Second, retryDelta: time.Second,
			resetAfter: time.Minute, resetDelta: time.Second})
	})
}

func BenchmarkAllow(b *testing.B) {
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"server0": servers["module"].Addr()}})
	defer ring.Close()
	l, limit := redisrate.NewLimiter(ring), redisrate.PerSecond(1e6)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := l.Allow(context.Background(), "foo", limit)
			if err != nil {
				b.Fatal(err)
			}
			if res.Allowed == 0 {
				b.Fatal("rejected")
			}
		}
	})
}
