package winprom_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	winlimit "github.com/winlimit/winlimit/clients/go"
)

// The (metric, labels) pairs the Grafana dashboard and the Prometheus rules query, extracted
// from them by scripts/dashboard_queries.py.
const dashboardQueries = "../../spec/dashboard_queries.json"

var sampleLine = regexp.MustCompile(`^(\w+)(?:\{(.*)\})? `)
var labelName = regexp.MustCompile(`(\w+)="`)

// exported reads a scrape: each sample's name and every label name it carries.
func exported(body string) map[string]map[string]bool {
	names := map[string]map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			continue // a comment (# HELP, # TYPE) or the blank last line
		}
		if names[m[1]] == nil {
			names[m[1]] = map[string]bool{}
		}
		for _, l := range labelName.FindAllStringSubmatch(m[2], -1) {
			names[m[1]][l[1]] = true
		}
	}
	return names
}

// decideAllowedRejectedAndFallback makes a limit of two's allowed and rejected decisions on
// a real Redis, then, Redis stopped, the fallback's with the breaker open.
func decideAllowedRejectedAndFallback(t *testing.T, metrics winlimit.Observer) {
	t.Helper()
	srv, rdb := redisClient(t)
	l, err := winlimit.New(rdb, winlimit.WithObserver(metrics), winlimit.WithFallback(winlimit.NewMemory()),
		winlimit.WithBreaker(1, time.Minute), winlimit.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	call := func() {
		for i := 0; i < 3; i++ {
			if _, err := l.Fixed(context.Background(), "user:1", time.Minute, 2); err != nil {
				t.Fatal(err)
			}
		}
	}
	call()
	srv.Stop()
	call()
}

func TestTheScrapeHoldsEveryMetricAndLabelTheDashboardQueries(t *testing.T) {
	raw, err := os.ReadFile(dashboardQueries)
	if err != nil {
		t.Fatal(err)
	}
	var queried map[string][]string
	if err := json.Unmarshal(raw, &queried); err != nil {
		t.Fatal(err)
	}
	metrics, scrapeMetrics := metricsOn(t)
	decideAllowedRejectedAndFallback(t, metrics)
	body := scrapeMetrics()
	wantLines(t, body, `winlimit_decisions_total{outcome="allowed",policy="winlimit"} 2`,
		`winlimit_decisions_total{outcome="rejected",policy="winlimit"} 1`,
		`winlimit_decisions_total{outcome="fallback",policy="winlimit"} 3`,
		`winlimit_breaker_state{limiter="winlimit"} 2`)
	names := exported(body)
	for metric, labels := range queried {
		if names[metric] == nil {
			t.Errorf("the dashboard queries %s, which this client does not export", metric)
		}
		for _, label := range labels {
			if names[metric] != nil && !names[metric][label] {
				t.Errorf("the dashboard queries %s by %s, a label it does not carry", metric, label)
			}
		}
	}
}
