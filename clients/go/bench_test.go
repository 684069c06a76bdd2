package winlimit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The client's overhead over a bare go-redis call: the same command line sent with rdb.Do
// and through the limiter, on the module, in one binary. Run with
// `go test -run '^$' -bench . -benchmem`.

func benchClient(b *testing.B) *redis.Client {
	b.Helper()
	return editions[0].client(b)
}

func BenchmarkBareGoRedisDo(b *testing.B) {
	rdb := benchClient(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := rdb.Do(ctx, "WINLIMIT.FIXED", "bench:"+strconv.Itoa(i%1000), 60000, 1000000).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLimiterFixed(b *testing.B) {
	l := newLimiter(b, benchClient(b))
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := l.Fixed(ctx, "bench:"+strconv.Itoa(i%1000), time.Minute, 1000000); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLimiterFixedNoTimeoutNoBreaker(b *testing.B) {
	l := newLimiter(b, benchClient(b), WithTimeout(0), WithoutBreaker())
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := l.Fixed(ctx, "bench:"+strconv.Itoa(i%1000), time.Minute, 1000000); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMemoryLimiterFixed(b *testing.B) {
	m := NewMemory()
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := m.Fixed(ctx, "bench:"+strconv.Itoa(i%1000), time.Minute, 1000000); err != nil {
			b.Fatal(err)
		}
	}
}

// The same, on a client that stops at the context's deadline: the limiter's timeout then
// needs no goroutine.
func BenchmarkLimiterFixedContextTimeoutClient(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{Addr: benchClient(b).Options().Addr, ContextTimeoutEnabled: true})
	defer rdb.Close()
	l := newLimiter(b, rdb)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := l.Fixed(ctx, "bench:"+strconv.Itoa(i%1000), time.Minute, 1000000); err != nil {
			b.Fatal(err)
		}
	}
}
