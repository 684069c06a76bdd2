package httplimit

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	winlimit "github.com/winlimit/winlimit/clients/go"
)

type specCall struct {
	Method  string         `json:"method"`
	Args    []any          `json:"args"`
	Options map[string]any `json:"options"`
}

func ms(v any) time.Duration { return time.Duration(v.(float64)) * time.Millisecond }

// run makes the spec call on l for key.
func (c specCall) run(ctx context.Context, l winlimit.Deciding, key string) (winlimit.Decision, error) {
	var opts []winlimit.CallOption
	for name, v := range c.Options {
		switch name {
		case "cost":
			opts = append(opts, winlimit.Cost(int64(v.(float64))))
		case "burst":
			opts = append(opts, winlimit.Burst(int64(v.(float64))))
		case "name":
			opts = append(opts, winlimit.Name(v.(string)))
		default:
			return winlimit.Decision{}, errors.New("the test knows no option " + name)
		}
	}
	switch c.Method {
	case "fixed":
		return l.Fixed(ctx, key, ms(c.Args[1]), int64(c.Args[2].(float64)), opts...)
	case "gcra":
		return l.GCRA(ctx, key, ms(c.Args[1]), int64(c.Args[2].(float64)), opts...)
	case "slide":
		var windows []winlimit.Window
		for _, p := range c.Args[1].([]any) {
			pair := p.([]any)
			windows = append(windows, winlimit.Window{Length: ms(pair[0]), Limit: int64(pair[1].(float64))})
		}
		return l.Slide(ctx, key, windows, opts...)
	}
	return winlimit.Decision{}, errors.New("no method " + c.Method)
}

func fieldsOf(h http.Header) map[string]string {
	out := map[string]string{}
	for _, k := range []string{"RateLimit-Policy", "RateLimit", "Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if v := h.Get(k); v != "" {
			out[http.CanonicalHeaderKey(k)] = v
		}
	}
	return out
}

func canonical(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[http.CanonicalHeaderKey(k)] = v
	}
	return out
}

func TestSpecShadow(t *testing.T) {
	var spec struct {
		Cases []struct {
			Name    string   `json:"name"`
			Call    specCall `json:"call"`
			LogKeys int      `json:"log_keys"`
			Steps   []struct {
				AtMs    float64           `json:"at_ms"`
				Key     string            `json:"key"`
				Reply   [5]int64          `json:"reply"`
				Warning *string           `json:"warning"`
				Fields  map[string]string `json:"fields"`
			} `json:"steps"`
			Counted int64 `json:"counted"`
		} `json:"cases"`
	}
	loadSpec(t, "shadow.json", &spec)
	for _, c := range spec.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var lines logLines
			now := 0.0
			reply := [5]int64{}
			// The limiter is the memory limiter's decision replaced by the step's reply.
			check := func(ctx context.Context, l winlimit.Deciding, key string, r *http.Request) (winlimit.Decision, error) {
				d, err := c.Call.run(ctx, winlimit.NewMemory(), key)
				d.Allowed, d.Limit, d.Remaining = reply[0] == 1, reply[1], reply[2]
				d.RetryAfter, d.ResetAfter = time.Duration(reply[3])*time.Millisecond, time.Duration(reply[4])*time.Millisecond
				return d, err
			}
			mw, err := New(winlimit.NewMemory(), check, Shadow(), WithShadowLogKeys(c.LogKeys), WithLogger(lines.logger()))
			if err != nil {
				t.Fatal(err)
			}
			mw.shadowLog.clock = func() float64 { return now }
			seen := 0
			for i, step := range c.Steps {
				now, reply = step.AtMs, step.Reply
				key := strings.TrimPrefix(step.Key, "rl:")
				h := mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "app") }))
				w := httptest.NewRecorder()
				mw.o.key = func(*http.Request) (string, error) { return key, nil }
				h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
				if w.Code != 200 {
					t.Fatalf("step %d: status %d", i, w.Code)
				}
				got := lines.lines(t)[seen:]
				seen += len(got)
				switch {
				case step.Warning == nil && len(got) != 0:
					t.Fatalf("step %d: logged %v", i, got)
				case step.Warning != nil && (len(got) != 1 || got[0].Msg != *step.Warning || got[0].Level != "WARN"):
					t.Fatalf("step %d: logged %v, not %q", i, got, *step.Warning)
				}
				if step.Fields != nil && !reflect.DeepEqual(fieldsOf(w.Header()), canonical(step.Fields)) {
					t.Fatalf("step %d: fields %v, not %v", i, fieldsOf(w.Header()), step.Fields)
				}
			}
			if mw.ShadowRejections() != c.Counted {
				t.Fatalf("counted %d, not %d", mw.ShadowRejections(), c.Counted)
			}
		})
	}
}

type middlewareCase struct {
	Name     string            `json:"name"`
	Options  map[string]any    `json:"options"`
	Check    any               `json:"check"`
	Redis    string            `json:"redis"`
	Requests int               `json:"requests"`
	Status   int               `json:"status"`
	Body     *string           `json:"body"`
	Fields   map[string]string `json:"fields"`
	Log      *struct {
		Level  string `json:"level"`
		Starts string `json:"starts"`
	} `json:"log"`
	RedisKeys []string `json:"redis_keys"`
}

func TestSpecMiddleware(t *testing.T) {
	var spec struct {
		Bodies map[string]string `json:"bodies"`
		Cases  []middlewareCase  `json:"cases"`
	}
	loadSpec(t, "middleware.json", &spec)
	for _, c := range spec.Cases {
		t.Run(c.Name, func(t *testing.T) { runMiddlewareCase(t, c, spec.Bodies) })
	}
}

func runMiddlewareCase(t *testing.T, c middlewareCase, bodies map[string]string) {
	var rdb *redis.Client
	var stop, pause func()
	if c.Redis == "up" {
		rdb = shared(t)
	} else {
		srv, own := own(t)
		rdb = own
		stop = srv.Stop
		pause = func() {
			if err := rdb.Do(context.Background(), "CLIENT", "PAUSE", 10000, "WRITE").Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	timeout := winlimit.DefaultTimeout
	if v, ok := c.Options["timeout_ms"]; ok {
		timeout = ms(v)
	}
	limiter := limiterOf(t, rdb, winlimit.WithTimeout(timeout), winlimit.WithLogger(discard()))
	var lines logLines
	opts := []Option{WithLogger(lines.logger())}
	if c.Options["shadow"] == true {
		opts = append(opts, Shadow())
	}
	if c.Options["fail_open"] == true {
		opts = append(opts, FailOpen())
	}
	if v, ok := c.Options["key"]; ok && v == nil {
		opts = append(opts, WithKey(func(*http.Request) (string, error) { return "", nil }))
	}
	check := func(ctx context.Context, l winlimit.Deciding, key string, r *http.Request) (winlimit.Decision, error) {
		if c.Check == "raises" {
			return winlimit.Decision{}, errors.New("a bug in the check")
		}
		var sc specCall
		m := c.Check.(map[string]any)
		sc.Method, sc.Args, sc.Options = m["method"].(string), m["args"].([]any), m["options"].(map[string]any)
		return sc.run(ctx, l, key)
	}
	mw, err := New(limiter, check, opts...)
	if err != nil {
		t.Fatal(err)
	}
	app := httptest.NewServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "app")
	})))
	defer app.Close()
	client := app.Client()
	var resp *http.Response
	var body []byte
	var started time.Time
	for i := 0; i < c.Requests; i++ {
		if i == c.Requests-1 {
			switch c.Redis {
			case "stopped":
				stop()
			case "paused":
				pause()
			}
			started = time.Now()
		}
		if resp, err = client.Get(app.URL); err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if c.Redis == "paused" {
		if waited := time.Since(started); waited < timeout {
			t.Fatalf("answered after %v, sooner than the timeout", waited)
		}
		_ = rdb.Do(context.Background(), "CLIENT", "UNPAUSE").Err()
	}
	if resp.StatusCode != c.Status {
		t.Fatalf("status %d, not %d", resp.StatusCode, c.Status)
	}
	if c.Body != nil {
		want := *c.Body
		if b, ok := bodies[want]; ok {
			want = b
		}
		if strings.TrimSpace(string(body)) != want {
			t.Fatalf("body %q, not %q", body, want)
		}
	}
	if got := fieldsOf(resp.Header); !reflect.DeepEqual(got, canonical(c.Fields)) {
		t.Fatalf("fields %v, not %v", got, c.Fields)
	}
	got := lines.lines(t)
	levels := map[string]string{"warn": "WARN", "error": "ERROR"}
	switch {
	case c.Log == nil && len(got) != 0:
		t.Fatalf("logged %v", got)
	case c.Log != nil && (len(got) != 1 || got[0].Level != levels[c.Log.Level] || !strings.HasPrefix(got[0].Msg, c.Log.Starts)):
		t.Fatalf("logged %v, not one %s line starting %q", got, c.Log.Level, c.Log.Starts)
	}
	if c.RedisKeys != nil {
		keys, err := rdb.Keys(context.Background(), "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) != len(c.RedisKeys) || (len(keys) > 0 && !reflect.DeepEqual(keys, c.RedisKeys)) {
			t.Fatalf("Redis holds %v, not %v", keys, c.RedisKeys)
		}
	}
}
