// Command rls benchmarks winlimit-ratelimit beside envoyproxy/ratelimit (make bench-rls): the
// same configuration, the same Redis, the same gRPC load of ShouldRateLimit at fixed
// concurrency over thousands of descriptor values, in alternating rounds; it writes the
// medians and every round to a Markdown file.
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// target is one thing a round measures: a service, and the domain the load asks for.
type target struct {
	name   string
	svc    *service
	domain string
}

type options struct {
	winlimit, upstream, upstreamVersion string
	redisServer, module, out            string
	rounds, keys, conns                 int
	load                                load
	hungCalls                           int
	hungDeadline                        time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.winlimit, "winlimit", "", "winlimit-ratelimit binary")
	flag.StringVar(&o.upstream, "upstream", "", "envoyproxy/ratelimit binary (empty: winlimit alone)")
	flag.StringVar(&o.upstreamVersion, "upstream-version", "", "its module version, for the report")
	flag.StringVar(&o.redisServer, "redis-server", "", "redis-server 7.0 binary")
	flag.StringVar(&o.module, "module", "", "libwinlimit.so")
	flag.StringVar(&o.out, "out", "bench/results/rls.md", "the report")
	flag.IntVar(&o.rounds, "rounds", 30, "rounds; each measures every target once")
	flag.IntVar(&o.keys, "keys", 5000, "distinct descriptor values")
	flag.IntVar(&o.conns, "conns", 2, "gRPC connections to each service")
	flag.IntVar(&o.load.workers, "workers", 32, "calls in flight at once")
	flag.DurationVar(&o.load.warmup, "warmup", 250*time.Millisecond, "load before each window")
	flag.DurationVar(&o.load.window, "window", 500*time.Millisecond, "each round's measured window")
	flag.IntVar(&o.hungCalls, "hung-calls", 12, "calls to each service while Redis is stopped (0: none)")
	flag.DurationVar(&o.hungDeadline, "hung-deadline", 3*time.Second, "each of those calls' client deadline")
	flag.Parse()
	if o.winlimit == "" || o.redisServer == "" || o.module == "" {
		log.Fatal("-winlimit, -redis-server and -module are needed")
	}
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

func run(o options) error {
	makeValues(o.keys)
	dir, err := os.MkdirTemp("", "winlimit-bench-rls-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	targets, stop, err := setUp(o, dir)
	defer stop()
	if err != nil {
		return err
	}
	// Interrupted, the rounds stop and every process started is still stopped by its PID.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	loadBefore := loadAverage()
	var results []result
	for round := range o.rounds {
		// Each round starts with the next target, so no target always runs first or last.
		for i := range targets {
			t := targets[(i+round)%len(targets)]
			r, err := o.load.run(ctx, t, round+1)
			if err == nil {
				err = ctx.Err()
			}
			if err != nil {
				return err
			}
			log.Printf("round %d %-45s %8.0f req/s p50 %v p99 %v redis %v/call service %v/call errors %d",
				r.round, r.target, r.perSecond, r.p50, r.p99, r.redisCPU, r.serviceCPU, r.errors)
			results = append(results, r)
		}
	}
	loadAfter := loadAverage()
	hungResults, err := hung(ctx, targets, o.hungCalls, o.hungDeadline)
	if err != nil {
		return err
	}
	return os.WriteFile(o.out, []byte(report(o, targets, results, hungResults, loadBefore, loadAfter)), 0o644)
}

// setUp starts two Redis 7.0 servers, one with the module and one without (Functions), and
// the services on them; stop ends every process it started, by PID.
func setUp(o options, dir string) ([]target, func(), error) {
	var procs []interface{ stop() }
	stop := func() {
		for i := len(procs) - 1; i >= 0; i-- {
			procs[i].stop()
		}
	}
	withModule, err := startRedis("redis-module", o.redisServer, o.module, dir)
	if err != nil {
		return nil, stop, err
	}
	procs = append(procs, withModule)
	plain, err := startRedis("redis-functions", o.redisServer, "", dir)
	if err != nil {
		return nil, stop, err
	}
	procs = append(procs, plain)
	start := func(name, binary string, r *redisServer) *service {
		s, e := startService(name, binary, dir, r, o.conns)
		if e != nil {
			err = errors.Join(err, e)
			return nil
		}
		procs = append(procs, s)
		return s
	}
	wlModule := start("winlimit-module", o.winlimit, withModule)
	wlFunctions := start("winlimit-functions", o.winlimit, plain)
	var upstream *service
	if o.upstream != "" {
		upstream = start("upstream", o.upstream, withModule)
	}
	if err != nil {
		return nil, stop, err
	}
	targets := []target{
		{name: nameModule, svc: wlModule, domain: "bench"},
		{name: nameFunctions, svc: wlFunctions, domain: "bench"},
		{name: nameFloor, svc: wlModule, domain: "none"},
	}
	if upstream != nil {
		targets = append(targets, target{name: nameUpstream, svc: upstream, domain: "bench"})
	}
	return targets, stop, nil
}

func init() { log.SetFlags(log.Ltime) }
