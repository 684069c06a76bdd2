package winprom_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/httplimit"
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
	l, err := winlimit.New(rdb, winlimit.WithObserver(metrics), winlimit.WithRejectionCache(winlimit.DefaultCacheSize))
	if err != nil {
		t.Fatal(err)
	}
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

// metricsOn registers a new Collector once, on a registry served at a real /metrics; scrape
// reads it.
func metricsOn(t *testing.T) (metrics *winprom.Collector, scrapeMetrics func() string) {
	t.Helper()
	metrics = winprom.New()
	registry := prometheus.NewRegistry()
	registry.MustRegister(metrics)
	web := httptest.NewServer(promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	t.Cleanup(web.Close)
	return metrics, func() string { return scrape(t, web.URL+"/metrics") }
}

// redisClient is a client to a module server of the test's own.
func redisClient(t *testing.T) (*redistest.Server, *redis.Client) {
	t.Helper()
	srv, err := redistest.Start("redis-7.0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	return srv, rdb
}

// getAll makes n requests through mw to a real HTTP server; their statuses.
func getAll(t *testing.T, mw *httplimit.Middleware, n int) []int {
	t.Helper()
	app := httptest.NewServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	defer app.Close()
	var statuses []int
	for i := 0; i < n; i++ {
		resp, err := app.Client().Get(app.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
	}
	return statuses
}

func middlewareOn(t *testing.T, l winlimit.Deciding, opts ...httplimit.Option) *httplimit.Middleware {
	t.Helper()
	mw, err := httplimit.New(l, httplimit.Fixed(time.Minute, 2), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return mw
}

func wantLines(t *testing.T, body string, lines ...string) {
	t.Helper()
	for _, want := range lines {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("no %s in\n%s", want, body)
		}
	}
}

func TestAMiddlewaresDecisionsCountOnceAtTheLimiter(t *testing.T) {
	metrics, scrapeMetrics := metricsOn(t)
	_, rdb := redisClient(t)
	l, err := winlimit.New(rdb, winlimit.WithObserver(metrics))
	if err != nil {
		t.Fatal(err)
	}
	if got := getAll(t, middlewareOn(t, l), 3); got[0] != 200 || got[1] != 200 || got[2] != 429 {
		t.Fatalf("%v", got)
	}
	wantLines(t, scrapeMetrics(),
		`winlimit_decisions_total{outcome="allowed",policy="winlimit"} 2`,
		`winlimit_decisions_total{outcome="rejected",policy="winlimit"} 1`,
		`winlimit_decisions_by_source_total{policy="winlimit",source="redis"} 3`)
}

func TestShadowModesRejectionsCountAsShadowRejected(t *testing.T) {
	metrics, scrapeMetrics := metricsOn(t)
	_, rdb := redisClient(t)
	l, err := winlimit.New(rdb, winlimit.WithObserver(metrics))
	if err != nil {
		t.Fatal(err)
	}
	if got := getAll(t, middlewareOn(t, l, httplimit.Shadow(), httplimit.WithLogger(discard())), 4); got[3] != 200 {
		t.Fatalf("%v", got)
	}
	body := scrapeMetrics()
	wantLines(t, body,
		`winlimit_decisions_total{outcome="allowed",policy="winlimit"} 2`,
		`winlimit_decisions_total{outcome="shadow_rejected",policy="winlimit"} 2`)
	if strings.Contains(body, `outcome="rejected"`) {
		t.Errorf("a shadow rejection counted as a rejection:\n%s", body)
	}
}

func TestAMiddlewaresFailuresCountAsErrors(t *testing.T) {
	metrics, scrapeMetrics := metricsOn(t)
	srv, rdb := redisClient(t)
	l, err := winlimit.New(rdb, winlimit.WithObserver(metrics), winlimit.WithoutBreaker())
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	if got := getAll(t, middlewareOn(t, l, httplimit.WithLogger(discard())), 2); got[0] != 503 || got[1] != 503 {
		t.Fatalf("%v", got)
	}
	wantLines(t, scrapeMetrics(), `winlimit_decisions_total{outcome="error",policy="winlimit"} 2`)
}

func TestTheFallbacksDecisionsCountAsFallback(t *testing.T) {
	metrics, scrapeMetrics := metricsOn(t)
	srv, rdb := redisClient(t)
	l, err := winlimit.New(rdb, winlimit.WithObserver(metrics), winlimit.WithFallback(winlimit.NewMemory()),
		winlimit.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	if got := getAll(t, middlewareOn(t, l), 3); got[0] != 200 || got[1] != 200 || got[2] != 429 {
		t.Fatalf("%v", got)
	}
	wantLines(t, scrapeMetrics(),
		`winlimit_decisions_total{outcome="fallback",policy="winlimit"} 3`,
		`winlimit_decisions_by_source_total{policy="winlimit",source="memory"} 3`)
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
