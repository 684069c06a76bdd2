package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// measurement is one route in one round.
type measurement struct {
	Route         string  `json:"route"`
	Requests      int     `json:"requests"`
	RPS           float64 `json:"rps"`
	P50           float64 `json:"p50_ms"`
	P99           float64 `json:"p99_ms"`
	GatewayMicros float64 `json:"gateway_cpu_us_per_request"`
	RedisMicros   float64 `json:"redis_cpu_us_per_request"`
	DriverMicros  float64 `json:"load_and_backend_cpu_us_per_request"`
	Load          string  `json:"loadavg_after"`
}

type report struct {
	Date       string        `json:"date"`
	Options    string        `json:"options"`
	LoadBefore string        `json:"loadavg_before"`
	LoadAfter  string        `json:"loadavg_after"`
	Rounds     []measurement `json:"rounds"`
	Medians    []measurement `json:"medians"`
}

var labels = map[string]string{
	"scg":       "SCG's `RedisRateLimiter`",
	"module":    "winlimit, module",
	"functions": "winlimit, Functions",
	"none":      "no limiter",
}

// write writes the raw rounds and the medians as out's .json, and the table as out (.md).
func (r *report) write(out string) error {
	for _, route := range routes {
		r.Medians = append(r.Medians, r.median(route))
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(strings.TrimSuffix(out, ".md")+".json", append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(out, []byte(r.markdown()), 0o644)
}

// median is each field's own median over the route's rounds.
func (r *report) median(route string) measurement {
	var rps, p50, p99, gw, rd, dr []float64
	for _, m := range r.Rounds {
		if m.Route == route {
			rps, p50, p99 = append(rps, m.RPS), append(p50, m.P50), append(p99, m.P99)
			gw, rd, dr = append(gw, m.GatewayMicros), append(rd, m.RedisMicros), append(dr, m.DriverMicros)
		}
	}
	return measurement{Route: route, RPS: med(rps), P50: med(p50), P99: med(p99), GatewayMicros: med(gw), RedisMicros: med(rd),
		DriverMicros: med(dr)}
}

func med(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (r *report) markdown() string {
	var b strings.Builder
	b.WriteString(header)
	fmt.Fprintf(&b, "Run %s by `make bench-gateway`. %s. Load average (1, 5, 15 min) before the rounds %s, after %s "+
		"(the machine is shared: 2 cores, other work running).\n\n", r.Date, r.Options, r.LoadBefore, r.LoadAfter)
	fmt.Fprintf(&b, "| route | req/s (median) | p50 ms | p99 ms | Redis µs/request | gateway µs/request | load + backend µs/request |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range r.Medians {
		redis := fmt.Sprintf("%.1f", m.RedisMicros)
		if m.Route == "none" {
			redis = "— (" + redis + ")"
		}
		fmt.Fprintf(&b, "| %s | %.0f | %.2f | %.2f | %s | %.0f | %.0f |\n", labels[m.Route], m.RPS, m.P50, m.P99, redis,
			m.GatewayMicros, m.DriverMicros)
	}
	scg := r.Medians[0]
	fmt.Fprintf(&b, "\nAgainst SCG's own (target: req/s >= 1.35x, p99 and gateway CPU per request at or below):\n\n")
	for _, m := range r.Medians[1:3] {
		fmt.Fprintf(&b, "- %s: %.2fx its req/s, %.2fx its p99, %.2fx its gateway CPU per request: %s\n",
			labels[m.Route], m.RPS/scg.RPS, m.P99/scg.P99, m.GatewayMicros/scg.GatewayMicros, verdict(m, scg))
	}
	b.WriteString(footer)
	return b.String()
}

func verdict(m, scg measurement) string {
	var missed []string
	if m.RPS < 1.35*scg.RPS {
		missed = append(missed, "req/s")
	}
	if m.P99 > scg.P99 {
		missed = append(missed, "p99")
	}
	if m.GatewayMicros > scg.GatewayMicros {
		missed = append(missed, "gateway CPU")
	}
	if len(missed) == 0 {
		return "meets the target"
	}
	return "misses on " + strings.Join(missed, ", ")
}

const header = `# Spring Cloud Gateway: winlimit's limiter beside SCG's own (make bench-gateway)

One gateway (bench/gateway: Boot 4.0.7, Spring Cloud 2025.1.4, the winlimit-spring-cloud-gateway
jar of this tree) with four routes on one Go net/http backend: SCG's ` + "`RedisRateLimiter`" + `
(replenish-rate and burst-capacity 100,000) and winlimit's limiter on a Redis 7.0 with the module,
winlimit's on a Redis 7.0 without it (the library as Functions), and a route with no limiter. Both
winlimit routes use SLIDE, the exact log, at 10,000 an hour per key: winlimit.max-limit's default,
and far above what a key gets in a run, so every request is allowed (any other answer fails the
run). The load (Go's HTTP client, bench/gateway/load.go, or wrk with bench/gateway/wrk.lua) sends
GET with an X-Key header rotating over the keys, the gateway's key. Per route, the median of the rounds of: requests per second, p50 and p99 latency,
and CPU per request from /proc/<pid>/stat (utime+stime deltas) of the gateway's JVM and of both
redis-server processes, and of the load generator with the backend (the driver's own process,
plus wrk's).

`

const footer = `
Raw rounds: gateway.json. The load generator and the backend run on the same two cores as the
gateway and Redis, so every figure is lower than on a machine of its own; the rounds alternate
so that a change of the machine's load falls on every route alike.
`
