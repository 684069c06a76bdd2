// Package winprom is winlimit's metrics as a prometheus.Collector, named and labelled as
// the Python and Node clients' are; the caller registers it. No key is ever a label.
//
//	metrics := winprom.New()
//	prometheus.MustRegister(metrics) // once: one Collector serves every limiter
//	limiter, err := winlimit.New(rdb, winlimit.WithObserver(metrics))
//
// The limiter reports each decision once, with its true outcome, whoever asked: the
// application, httplimit (shadow mode's rejections as shadow_rejected) or grpclimit.
package winprom

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	winlimit "github.com/winlimit/winlimit/clients/go"
)

// Collector is winlimit's metrics, and the Observer that feeds them:
//   - winlimit_decisions_total{policy, outcome}: allowed, rejected, shadow_rejected, cached,
//     fallback or error;
//   - winlimit_decisions_by_source_total{policy, source}: redis or memory;
//   - winlimit_call_seconds{backend}: each call's time (redis, memory);
//   - winlimit_lowest_remaining{policy}: the lowest remaining since the last scrape;
//   - winlimit_breaker_state{limiter}: 0 closed, 1 half-open, 2 open;
//   - winlimit_breaker_transitions_total{limiter, to, cause}.
type Collector struct {
	decisions   *prometheus.CounterVec
	bySource    *prometheus.CounterVec
	callSeconds *prometheus.HistogramVec
	state       *prometheus.GaugeVec
	transitions *prometheus.CounterVec
	lowestDesc  *prometheus.Desc

	mu     sync.Mutex
	lowest map[string]int64
}

var _ winlimit.Observer = (*Collector)(nil)

// New makes the metrics; register them with prometheus.MustRegister or a registry's.
func New() *Collector {
	return &Collector{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "winlimit_decisions_total", Help: "Rate-limit decisions by policy and outcome"}, []string{"policy", "outcome"}),
		bySource: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "winlimit_decisions_by_source_total", Help: "Decisions by policy and where they were made (redis or memory)"},
			[]string{"policy", "source"}),
		callSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "winlimit_call_seconds", Help: "The time of each call to the backend"}, []string{"backend"}),
		state: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "winlimit_breaker_state", Help: "The circuit breaker's state: 0 closed, 1 half-open, 2 open"}, []string{"limiter"}),
		transitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "winlimit_breaker_transitions_total", Help: "The circuit breaker's changes of state"}, []string{"limiter", "to", "cause"}),
		lowestDesc: prometheus.NewDesc("winlimit_lowest_remaining", "The lowest remaining seen per policy since the last scrape",
			[]string{"policy"}, nil),
		lowest: map[string]int64{},
	}
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	c.decisions.Describe(ch)
	c.bySource.Describe(ch)
	c.callSeconds.Describe(ch)
	c.state.Describe(ch)
	c.transitions.Describe(ch)
	ch <- c.lowestDesc
}

// Collect sends every metric; the lowest remaining forgets what it sent.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.decisions.Collect(ch)
	c.bySource.Collect(ch)
	c.callSeconds.Collect(ch)
	c.state.Collect(ch)
	c.transitions.Collect(ch)
	c.mu.Lock()
	lowest := c.lowest
	c.lowest = map[string]int64{}
	c.mu.Unlock()
	for policy, remaining := range lowest {
		ch <- prometheus.MustNewConstMetric(c.lowestDesc, prometheus.GaugeValue, float64(remaining), policy)
	}
}

// Decided counts a decision (shadow: a rejection shadow mode let through).
func (c *Collector) Decided(d winlimit.Decision, shadow bool) {
	name := ""
	if p, ok := d.Policy(); ok {
		name = p.Name
	}
	outcome, source := "allowed", "redis"
	switch {
	case d.Backend == "memory":
		outcome, source = "fallback", "memory"
	case d.Allowed:
	case shadow:
		outcome = "shadow_rejected"
	case d.Cached:
		outcome = "cached"
	default:
		outcome = "rejected"
	}
	c.decisions.WithLabelValues(name, outcome).Inc()
	c.bySource.WithLabelValues(name, source).Inc()
	c.mu.Lock()
	if low, ok := c.lowest[name]; !ok || d.Remaining < low {
		c.lowest[name] = d.Remaining
	}
	c.mu.Unlock()
}

// Failed counts a call that got no decision.
func (c *Collector) Failed(policy string) { c.decisions.WithLabelValues(policy, "error").Inc() }

// Timed records a call's time.
func (c *Collector) Timed(backend string, d time.Duration) {
	c.callSeconds.WithLabelValues(backend).Observe(d.Seconds())
}

// BreakerChanged records a breaker's transition and its new state.
func (c *Collector) BreakerChanged(limiter string, to winlimit.BreakerState, cause string) {
	c.state.WithLabelValues(limiter).Set(float64(to))
	c.transitions.WithLabelValues(limiter, to.String(), cause).Inc()
}
