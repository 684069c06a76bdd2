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

// defaultClient is a go-redis client as most applications make one: no options but the
// address. tunedClient stops at the context's deadline (ContextTimeoutEnabled).
func defaultClient(b *testing.B) *redis.Client { return benchClient(b) }

func tunedClient(b *testing.B) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: benchClient(b).Options().Addr, ContextTimeoutEnabled: true})
	b.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

func benchBare(b *testing.B, rdb *redis.Client) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := rdb.Do(ctx, "WINLIMIT.FIXED", "bench:"+strconv.Itoa(i%1000), 60000, 1000000).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchLimiter(b *testing.B, l *Limiter) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := l.Fixed(ctx, "bench:"+strconv.Itoa(i%1000), time.Minute, 1000000); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBareGoRedisDo(b *testing.B) { benchBare(b, defaultClient(b)) }

func BenchmarkLimiterFixed(b *testing.B) { benchLimiter(b, newLimiter(b, defaultClient(b))) }

func BenchmarkBareGoRedisDoTunedClient(b *testing.B) { benchBare(b, tunedClient(b)) }

func BenchmarkLimiterFixedTunedClient(b *testing.B) { benchLimiter(b, newLimiter(b, tunedClient(b))) }

func BenchmarkLimiterFixedNoTimeoutNoBreaker(b *testing.B) {
	benchLimiter(b, newLimiter(b, defaultClient(b), WithTimeout(0), WithoutBreaker()))
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
