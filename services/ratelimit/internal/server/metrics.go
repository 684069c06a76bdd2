package server

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/winlimit/winlimit/services/ratelimit/internal/service"
)

// metrics are upstream's Prometheus counters under its default mapper's names and labels:
// ratelimit_service_rate_limit_<stat>{domain, key1, key2}; current at every scrape.
type metrics struct {
	total, over, near, within, shadow *prometheus.CounterVec
	globalShadow                      prometheus.Counter
}

var ruleLabels = []string{"domain", "key1", "key2"}

func newMetrics(reg prometheus.Registerer) *metrics {
	counter := func(name, help string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ratelimit_service_rate_limit_" + name, Help: help}, ruleLabels)
		reg.MustRegister(c)
		return c
	}
	m := &metrics{
		total:  counter("total_hits", "Hits checked against a rule."),
		over:   counter("over_limit", "Hits over a rule's limit."),
		near:   counter("near_limit", "Hits past NEAR_LIMIT_RATIO of a rule's limit."),
		within: counter("within_limit", "Hits within a rule's limit."),
		shadow: counter("shadow_mode", "Hits over a limit let through by shadow mode."),
		globalShadow: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ratelimit_service_global_shadow_mode", Help: "Requests let through by SHADOW_MODE."}),
	}
	reg.MustRegister(m.globalShadow)
	return m
}

// labels splits a metric key "domain.key1.key2..." as upstream's default mapper does: the
// domain, the first level and the second; deeper levels are dropped.
func labels(statKey string) prometheus.Labels {
	parts := strings.SplitN(statKey, ".", 4)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return prometheus.Labels{"domain": parts[0], "key1": parts[1], "key2": parts[2]}
}

func (m *metrics) Add(statKey string, c service.Counts) {
	l := labels(statKey)
	m.total.With(l).Add(float64(c.Total))
	m.over.With(l).Add(float64(c.Over))
	m.near.With(l).Add(float64(c.Near))
	m.within.With(l).Add(float64(c.Within))
	m.shadow.With(l).Add(float64(c.Shadow))
}

func (m *metrics) GlobalShadow() { m.globalShadow.Inc() }
