package winprom_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/internal/redistest"
	"github.com/winlimit/winlimit/clients/go/winprom"
)

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

func TestDecisionsShowOnARealMetricsHandlerWithoutKeys(t *testing.T) {
	metrics := winprom.New()
	registry := prometheus.NewRegistry()
	registry.MustRegister(metrics)
	srv := httptest.NewServer(promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	defer srv.Close()

	ctx := context.Background()
	m := winlimit.NewMemory(winlimit.WithMemoryOptions(winlimit.WithName("api")))
	for i := 0; i < 3; i++ {
		d, err := m.Fixed(ctx, "secret-user-key", time.Minute, 2)
		if err != nil {
			t.Fatal(err)
		}
		metrics.Decided(d, false)
	}
	metrics.Failed("api")
	metrics.Timed("redis", 2*time.Millisecond)
	metrics.BreakerChanged("api", winlimit.BreakerOpen, "failures")

	body := scrape(t, srv.URL)
	for _, want := range []string{
		`winlimit_decisions_total{outcome="fallback",policy="api"} 3`,
		`winlimit_decisions_total{outcome="error",policy="api"} 1`,
		`winlimit_decisions_by_source_total{policy="api",source="memory"} 3`,
		`winlimit_call_seconds_count{backend="redis"} 1`,
		`winlimit_lowest_remaining{policy="api"} 0`,
		`winlimit_breaker_state{limiter="api"} 2`,
		`winlimit_breaker_transitions_total{cause="failures",limiter="api",to="open"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s in\n%s", want, body)
		}
	}
	if strings.Contains(body, "secret-user-key") {
		t.Error("a key is a label")
	}
	if strings.Contains(scrape(t, srv.URL), "winlimit_lowest_remaining{") {
		t.Error("the lowest remaining did not forget on scrape")
	}
}

func TestALimiterOnRedisReportsToTheCollector(t *testing.T) {
	srv, err := redistest.Start("redis-7.0", true)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	metrics := winprom.New()
	registry := prometheus.NewRegistry()
	registry.MustRegister(metrics)
	web := httptest.NewServer(promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	defer web.Close()
	l := winlimit.New(rdb, winlimit.WithObserver(metrics), winlimit.WithRejectionCache(winlimit.DefaultCacheSize))
	for i := 0; i < 3; i++ {
		if _, err := l.Fixed(context.Background(), "k", time.Minute, 1); err != nil {
			t.Fatal(err)
		}
	}
	body := scrape(t, web.URL)
	for _, want := range []string{
		`winlimit_decisions_total{outcome="allowed",policy="winlimit"} 1`,
		`winlimit_decisions_total{outcome="rejected",policy="winlimit"} 1`,
		`winlimit_decisions_total{outcome="cached",policy="winlimit"} 1`,
		`winlimit_call_seconds_count{backend="redis"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s in\n%s", want, body)
		}
	}
}
