// Command gateway is make bench-gateway's driver: it starts two Redis 7.0 servers (one with the
// module, one without, where winlimit runs as Functions), a backend, and the gateway of this
// folder's Maven project, then loads each route in alternating rounds and writes the medians.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/winlimit/winlimit/bench/internal/procs"
)

// routes are the gateway's routes (src/main/resources/application.yml), in the first round's order.
var routes = []string{"scg", "module", "functions", "none"}

type options struct {
	java, classpath, redis, module, out string
	wrk                                 string
	rounds, conns, keys                 int
	round, warmup                       time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.java, "java", "java", "the java binary")
	flag.StringVar(&o.classpath, "classpath", "", "the gateway's class path")
	flag.StringVar(&o.redis, "redis-server", "", "redis-server 7.0")
	flag.StringVar(&o.module, "module", "", "libwinlimit.so")
	flag.StringVar(&o.out, "out", "", "the report, .md (and its .json beside it)")
	flag.IntVar(&o.rounds, "rounds", 5, "rounds, each route once per round")
	flag.IntVar(&o.conns, "conns", 32, "concurrent keep-alive connections")
	flag.IntVar(&o.keys, "keys", 10000, "distinct keys, rotated")
	flag.DurationVar(&o.round, "round", 10*time.Second, "one route's load in a round")
	flag.StringVar(&o.wrk, "wrk", "", "load with this wrk binary instead of Go's HTTP client")
	flag.DurationVar(&o.warmup, "warmup", 30*time.Second, "each route's load before the rounds (not counted)")
	flag.Parse()
	if o.classpath == "" || o.redis == "" || o.module == "" || o.out == "" {
		log.Fatal("-classpath, -redis-server, -module and -out are required")
	}
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

// setup is what run starts; stop stops it all, each by its PID.
type setup struct {
	gateway, redisModule, redisFunctions *procs.Proc
	base, wrkScript                      string
	stops                                []func()
}

func (s *setup) stop() {
	for i := len(s.stops) - 1; i >= 0; i-- {
		s.stops[i]()
	}
}

func run(o options) error {
	dir, err := os.MkdirTemp("", "bench-gateway")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s := &setup{}
	defer s.stop()
	if o.wrk != "" {
		if s.wrkScript, err = writeWrkScript(dir); err != nil {
			return err
		}
	}
	if err := s.start(o, dir); err != nil {
		return withLog(err, dir)
	}
	if err := s.rounds(o); err != nil {
		return withLog(err, dir)
	}
	return nil
}

// withLog adds the gateway's log to err: the temporary folder is gone once run returns.
func withLog(err error, dir string) error {
	b, _ := os.ReadFile(dir + "/gateway.log")
	if len(b) > 8000 {
		b = b[len(b)-8000:]
	}
	return fmt.Errorf("%w\ngateway.log (its end):\n%s", err, b)
}

// rounds warms each route up, then loads them in alternating rounds and writes the report.
func (s *setup) rounds(o options) error {
	for _, r := range routes {
		log.Printf("warm-up %s", r)
		if _, _, err := s.load(o, r, o.warmup); err != nil {
			return err
		}
	}
	rep := report{Date: time.Now().UTC().Format(time.RFC3339), Options: o.describe(), LoadBefore: loadavg()}
	for round := range o.rounds {
		for _, r := range order(round) {
			m, err := s.measure(o, r)
			if err != nil {
				return err
			}
			log.Printf("round %d %s: %.0f req/s, p99 %.2f ms, load %s", round+1, r, m.RPS, m.P99, m.Load)
			rep.Rounds = append(rep.Rounds, m)
		}
	}
	rep.LoadAfter = loadavg()
	return rep.write(o.out)
}

// order alternates: the routes in order in even rounds, reversed in odd ones.
func order(round int) []string {
	out := append([]string(nil), routes...)
	if round%2 == 1 {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

func (s *setup) start(o options, dir string) error {
	var port int
	var err error
	if s.redisModule, port, err = startRedis("redis-module", o.redis, o.module, dir); err != nil {
		return err
	}
	s.stops = append(s.stops, s.redisModule.Stop)
	var functionsPort int
	if s.redisFunctions, functionsPort, err = startRedis("redis-functions", o.redis, "", dir); err != nil {
		return err
	}
	s.stops = append(s.stops, s.redisFunctions.Stop)
	backend, stopBackend, err := serveBackend()
	if err != nil {
		return err
	}
	s.stops = append(s.stops, stopBackend)
	gatewayPort, err := procs.FreePort()
	if err != nil {
		return err
	}
	s.base = "http://127.0.0.1:" + strconv.Itoa(gatewayPort)
	if s.gateway, err = procs.Start("gateway", nil, dir, o.java, "-cp", o.classpath, "io.winlimit.bench.gateway.GatewayBench",
		"--server.port="+strconv.Itoa(gatewayPort), "--spring.data.redis.port="+strconv.Itoa(port),
		"--bench.functions-port="+strconv.Itoa(functionsPort), "--bench.backend="+backend); err != nil {
		return err
	}
	s.stops = append(s.stops, s.gateway.Stop)
	return waitFor("the gateway (log: "+dir+"/gateway.log)", func() bool {
		resp, err := http.Get(s.base + "/none/")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// measure loads one route for a round, with the CPU the gateway and both servers spent meanwhile.
func (s *setup) measure(o options, route string) (measurement, error) {
	ps := []*procs.Proc{s.gateway, s.redisModule, s.redisFunctions}
	before, err := cpus(ps)
	if err != nil {
		return measurement{}, err
	}
	res, driverCPU, err := s.load(o, route, o.round)
	if err != nil {
		return measurement{}, err
	}
	after, err := cpus(ps)
	if err != nil {
		return measurement{}, err
	}
	perRequest := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(res.requests) }
	return measurement{
		Route: route, Requests: res.requests, RPS: res.rps(),
		P50: ms(res.p50), P99: ms(res.p99),
		GatewayMicros: perRequest(after[0] - before[0]),
		RedisMicros:   perRequest(after[1] - before[1] + after[2] - before[2]),
		DriverMicros:  perRequest(driverCPU),
		Load:          loadavg(),
	}, nil
}

// load loads route for d with wrk (-wrk) or Go's HTTP client, and returns the CPU the load
// generator and the backend (this process) spent meanwhile.
func (s *setup) load(o options, route string, d time.Duration) (result, time.Duration, error) {
	url := s.base + "/" + route + "/"
	before := ownCPU()
	var res result
	var wrkCPU time.Duration
	var err error
	if o.wrk != "" {
		res, wrkCPU, err = loadWithWrk(o.wrk, s.wrkScript, url, o.conns, o.keys, d)
	} else {
		res, err = load(url, o.conns, o.keys, d)
	}
	return res, ownCPU() - before + wrkCPU, err
}

// ownCPU is this process's user and system time: the Go load generator and the backend.
func ownCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func cpus(ps []*procs.Proc) ([]time.Duration, error) {
	out := make([]time.Duration, len(ps))
	for i, p := range ps {
		var err error
		if out[i], err = p.CPU(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (o options) describe() string {
	return strings.Join([]string{
		fmt.Sprintf("%d rounds of %s per route (order alternating), %s warm-up per route", o.rounds, o.round, o.warmup),
		fmt.Sprintf("%d keep-alive connections, %d keys rotated, loaded by %s", o.conns, o.keys, o.generator()),
	}, "; ")
}

// generator names the load generator in the report.
func (o options) generator() string {
	if o.wrk != "" {
		return fmt.Sprintf("wrk (%d threads, bench/gateway/wrk.lua)", wrkThreads)
	}
	return "Go's net/http client (bench/gateway/load.go)"
}
