package winlimit

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The limiter against the bare call, interleaved at a fine grain: blocks of the bare call and
// of the limiter alternate (which goes first alternating too), each pair timed back to back,
// so a change of load on a shared machine falls on both alike. Reported: the median per-call
// time of each, and the median of the pairs' ratios (limiter/bare).

const overheadBlock = 20 // calls per timed block

func BenchmarkOverheadDefaultClient(b *testing.B) {
	rdb := defaultClient(b)
	benchOverhead(b, rdb, newLimiter(b, rdb))
}

func BenchmarkOverheadTunedClient(b *testing.B) {
	rdb := tunedClient(b)
	benchOverhead(b, rdb, newLimiter(b, rdb))
}

func benchOverhead(b *testing.B, rdb *redis.Client, l *Limiter) {
	ctx := context.Background()
	bare := func(i int) error {
		return rdb.Do(ctx, "WINLIMIT.FIXED", "bench:"+strconv.Itoa(i%1000), 60000, 1000000).Err()
	}
	limited := func(i int) error {
		_, err := l.Fixed(ctx, "bench:"+strconv.Itoa(i%1000), time.Minute, 1000000)
		return err
	}
	var bareNs, limiterNs, ratios []float64
	for pair := 0; b.Loop(); pair++ {
		first, second := bare, limited
		if pair%2 == 1 {
			first, second = limited, bare
		}
		t1, err1 := timeBlock(first, pair)
		t2, err2 := timeBlock(second, pair)
		if err1 != nil || err2 != nil {
			b.Fatal(err1, err2)
		}
		if pair%2 == 1 {
			t1, t2 = t2, t1
		}
		bareNs, limiterNs = append(bareNs, t1), append(limiterNs, t2)
		ratios = append(ratios, t2/t1)
	}
	b.ReportMetric(median(bareNs), "bare-ns/call")
	b.ReportMetric(median(limiterNs), "limiter-ns/call")
	b.ReportMetric(median(ratios), "limiter/bare")
}

// timeBlock runs f overheadBlock times; ns per call.
func timeBlock(f func(i int) error, pair int) (float64, error) {
	started := time.Now()
	for i := 0; i < overheadBlock; i++ {
		if err := f(pair*overheadBlock + i); err != nil {
			return 0, err
		}
	}
	return float64(time.Since(started).Nanoseconds()) / overheadBlock, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
