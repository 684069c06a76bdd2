package httplimit

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	winlimit "github.com/winlimit/winlimit/clients/go"
)

func fixed(limit int64) Check { return Fixed(time.Minute, limit) }

// serve runs mw over app on a real server; get makes a request with a real client.
func serve(t *testing.T, mw *Middleware, app http.HandlerFunc) func(path string) (*http.Response, string) {
	t.Helper()
	srv := httptest.NewServer(mw.Handler(app))
	t.Cleanup(srv.Close)
	return func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
}

func okApp(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "app") }

func TestRejectedRequestsGet429WithRetryAfterAndTheFields(t *testing.T) {
	mw, err := New(limiterOf(t, shared(t)), fixed(2))
	if err != nil {
		t.Fatal(err)
	}
	get := serve(t, mw, okApp)
	for i := 0; i < 2; i++ {
		if resp, _ := get("/"); resp.StatusCode != 200 || resp.Header.Get("RateLimit") == "" {
			t.Fatalf("request %d: %d %v", i, resp.StatusCode, resp.Header)
		}
	}
	resp, body := get("/")
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "60" || strings.TrimSpace(body) != TooManyRequestsBody {
		t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, body)
	}
}

func TestCountingFailuresGivesBackTheUnitsOfSuccesses(t *testing.T) {
	rdb := shared(t)
	mw, err := New(limiterOf(t, rdb), fixed(2), WithCount(CountFailures, nil))
	if err != nil {
		t.Fatal(err)
	}
	get := serve(t, mw, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		okApp(w, r)
	})
	for i := 0; i < 5; i++ {
		if resp, _ := get("/"); resp.StatusCode != 200 {
			t.Fatalf("success %d limited: %d", i, resp.StatusCode)
		}
	}
	get("/fail")
	get("/fail")
	if resp, _ := get("/"); resp.StatusCode != 429 {
		t.Fatalf("after two failures: %d", resp.StatusCode)
	}
}

func TestCountingSuccessesGivesBackTheUnitsOfFailures(t *testing.T) {
	mw, err := New(limiterOf(t, shared(t)), fixed(1), WithCount(CountSuccesses, func(status int) bool { return status >= 500 }))
	if err != nil {
		t.Fatal(err)
	}
	get := serve(t, mw, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		okApp(w, r)
	})
	for i := 0; i < 3; i++ {
		if resp, _ := get("/fail"); resp.StatusCode != 502 {
			t.Fatalf("failure %d: %d", i, resp.StatusCode)
		}
	}
	get("/")
	if resp, _ := get("/"); resp.StatusCode != 429 {
		t.Fatalf("a second success: %d", resp.StatusCode)
	}
}

func TestTheWrappedWriterStillFlushesAndHijacks(t *testing.T) {
	mw, err := New(limiterOf(t, shared(t)), fixed(10), WithCount(CountFailures, nil))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hijack" {
			conn, rw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			_, _ = rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
			_ = rw.Flush()
			return
		}
		_, _ = io.WriteString(w, "first\n")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Error(err)
		}
		w.(http.Flusher).Flush()
	})))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	resp.Body.Close()
	if line != "first\n" {
		t.Fatalf("%q", line)
	}
	resp, err = srv.Client().Get(srv.URL + "/hijack")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hijacked" {
		t.Fatalf("%q", body)
	}
}

func TestPerRequestLimitsAndARejectionHandler(t *testing.T) {
	check := func(ctx context.Context, l winlimit.Deciding, key string, r *http.Request) (winlimit.Decision, error) {
		limit := int64(1)
		if r.Header.Get("X-Plan") == "pro" {
			limit = 3
		}
		return l.Fixed(ctx, key+":"+r.Header.Get("X-Plan"), time.Minute, limit)
	}
	mw, err := New(limiterOf(t, shared(t)), check, OnReject(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":"slow down"}`)
	})))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw.Handler(http.HandlerFunc(okApp)))
	defer srv.Close()
	statuses := func(plan string, n int) []int {
		var out []int
		for i := 0; i < n; i++ {
			req, _ := http.NewRequest("GET", srv.URL, nil)
			req.Header.Set("X-Plan", plan)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 429 && (string(body) != `{"error":"slow down"}` || resp.Header.Get("Retry-After") == "") {
				t.Fatalf("rejection %q %v", body, resp.Header)
			}
			out = append(out, resp.StatusCode)
		}
		return out
	}
	if got := statuses("free", 2); got[0] != 200 || got[1] != 429 {
		t.Fatalf("free: %v", got)
	}
	if got := statuses("pro", 4); got[2] != 200 || got[3] != 429 {
		t.Fatalf("pro: %v", got)
	}
}

func TestTwoStackedMiddlewaresListBothPolicies(t *testing.T) {
	l := limiterOf(t, shared(t))
	perSecond, _ := New(l, func(ctx context.Context, l winlimit.Deciding, key string, r *http.Request) (winlimit.Decision, error) {
		return l.Slide(ctx, key+":s", []winlimit.Window{{Length: time.Second, Limit: 5}}, winlimit.Name("per-second"))
	})
	perMinute, _ := New(l, func(ctx context.Context, l winlimit.Deciding, key string, r *http.Request) (winlimit.Decision, error) {
		return l.Fixed(ctx, key+":m", time.Minute, 100, winlimit.Name("per-minute"))
	})
	srv := httptest.NewServer(perSecond.Handler(perMinute.Handler(http.HandlerFunc(okApp))))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("RateLimit-Policy"); got != `"per-second";q=5;w=1, "per-minute";q=100;w=60` {
		t.Fatalf("%q", got)
	}
}

func TestWhileRedisIsDownTheBreakerAndFallbackDecideAtOnce(t *testing.T) {
	srv, rdb := own(t)
	limiter := limiterOf(t, rdb, winlimit.WithFallback(winlimit.NewMemory()), winlimit.WithTimeout(200*time.Millisecond),
		winlimit.WithBreaker(1, time.Hour), winlimit.WithLogger(discard()))
	mw, err := New(limiter, fixed(2), WithCount(CountFailures, nil))
	if err != nil {
		t.Fatal(err)
	}
	get := serve(t, mw, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		okApp(w, r)
	})
	get("/") // the backend detected
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Resume() }()
	get("/") // times out, opens the breaker; the fallback decides
	// Counting failures applies to the fallback: successes are given back, failures count.
	for i := 0; i < 5; i++ {
		started := time.Now()
		if resp, _ := get("/"); resp.StatusCode != 200 || time.Since(started) >= 200*time.Millisecond {
			t.Fatalf("success %d during the outage: %d after %v", i, resp.StatusCode, time.Since(started))
		}
	}
	get("/fail")
	get("/fail")
	if resp, _ := get("/"); resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("after two failures in the fallback: %d", resp.StatusCode)
	}
}

func TestBadOptionsAreRefusedWhenTheMiddlewareIsMade(t *testing.T) {
	l := winlimit.NewMemory()
	for name, opt := range map[string]Option{
		"style": WithHeaders("draft-8"), "subnet": WithIPv6Subnet(129), "count": WithCount("some", nil),
	} {
		if _, err := New(l, fixed(1), opt); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := New(nil, fixed(1)); err == nil {
		t.Error("no limiter accepted")
	}
}

func TestIPv6ClientsAreKeyedByTheirSlash64(t *testing.T) {
	mw, _ := New(winlimit.NewMemory(), fixed(1))
	h := mw.Handler(http.HandlerFunc(okApp))
	statuses := []int{}
	for _, addr := range []string{"[2001:db8:1:2::1]:5000", "[2001:db8:1:2::ffff]:5001", "[2001:db8:1:3::1]:5002"} {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = addr
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		statuses = append(statuses, w.Code)
	}
	if statuses[0] != 200 || statuses[1] != 429 || statuses[2] != 200 {
		t.Fatalf("%v", statuses)
	}
}

func TestAnErrorOfTheCheckThatIsNotRedissGoesToOnError(t *testing.T) {
	var seen error
	bug := errors.New("a bug in the check")
	mw, err := New(winlimit.NewMemory(), func(context.Context, winlimit.Deciding, string, *http.Request) (winlimit.Decision, error) {
		return winlimit.Decision{}, bug
	}, FailOpen(), OnError(func(w http.ResponseWriter, r *http.Request, err error) {
		seen = err
		w.WriteHeader(http.StatusTeapot)
	}))
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	mw.Handler(http.HandlerFunc(okApp)).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != http.StatusTeapot || !errors.Is(seen, bug) {
		t.Fatalf("%d %v", w.Code, seen)
	}
}
