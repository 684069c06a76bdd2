package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

// values are the descriptor values, made once: "u0" ... so a call allocates no string.
var values []string

func request(domain string, i int) *pb.RateLimitRequest {
	return &pb.RateLimitRequest{Domain: domain, Descriptors: []*rlv3.RateLimitDescriptor{{
		Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: "user", Value: values[i%len(values)]}},
	}}}
}

func makeValues(n int) {
	values = make([]string, n)
	for i := range values {
		values[i] = "u" + strconv.Itoa(i)
	}
}

// result is one round of one target.
type result struct {
	target               string
	round                int
	calls, errors        int
	perSecond            float64
	p50, p99             time.Duration
	redisCPU, serviceCPU time.Duration // per call
	// lat are the window's latencies, sorted; the CPU totals are the window's. The summary
	// pools them over the rounds.
	lat                      []time.Duration
	redisTotal, serviceTotal time.Duration
}

// load is the round's shape: workers calling back to back, a warm-up, then the window.
type load struct {
	workers        int
	warmup, window time.Duration
}

// run drives the target at fixed concurrency: the calls that end inside the window are
// counted and timed, the CPU of Redis and of the service is read at the window's edges.
func (l load) run(ctx context.Context, t target, round int) (result, error) {
	var measuring, stop atomic.Bool
	var next atomic.Int64
	lat := make([][]time.Duration, l.workers)
	errs := make([]int, l.workers)
	var wg sync.WaitGroup
	for w := range l.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := t.svc.rpc[w%len(t.svc.rpc)]
			for !stop.Load() {
				req := request(t.domain, int(next.Add(1)))
				began := time.Now()
				_, err := client.ShouldRateLimit(ctx, req)
				took := time.Since(began)
				if measuring.Load() {
					if err != nil {
						errs[w]++
					}
					lat[w] = append(lat[w], took)
				}
			}
		}()
	}
	time.Sleep(l.warmup)
	before, err := t.cpu(ctx)
	if err != nil {
		stop.Store(true)
		wg.Wait()
		return result{}, err
	}
	measuring.Store(true)
	began := time.Now()
	time.Sleep(l.window)
	measuring.Store(false)
	elapsed := time.Since(began)
	after, err := t.cpu(ctx)
	stop.Store(true)
	wg.Wait()
	if err != nil {
		return result{}, err
	}
	return summarise(t.name, round, lat, errs, elapsed, before, after), nil
}

func summarise(name string, round int, lat [][]time.Duration, errs []int, elapsed time.Duration, before, after cpuTimes) result {
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := result{target: name, round: round, calls: len(all), lat: all,
		redisTotal: after.redis - before.redis, serviceTotal: after.service - before.service}
	for _, e := range errs {
		r.errors += e
	}
	if len(all) == 0 {
		return r
	}
	n := time.Duration(len(all))
	r.perSecond = float64(len(all)) / elapsed.Seconds()
	r.p50, r.p99 = all[len(all)/2], all[len(all)*99/100]
	r.redisCPU, r.serviceCPU = r.redisTotal/n, r.serviceTotal/n
	return r
}

// cpuTimes are the CPU times so far of the target's Redis and of its service.
type cpuTimes struct{ redis, service time.Duration }

func (t target) cpu(ctx context.Context) (cpuTimes, error) {
	r, err := t.svc.redis.redisCPU(ctx)
	if err != nil {
		return cpuTimes{}, fmt.Errorf("%s: Redis INFO: %w", t.name, err)
	}
	s, err := t.svc.cpu()
	if err != nil {
		return cpuTimes{}, fmt.Errorf("%s: %w", t.name, err)
	}
	return cpuTimes{redis: r, service: s}, nil
}
