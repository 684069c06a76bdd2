package httplimit

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/internal/redistest"
)

var (
	server     *redistest.Server
	serverOnce sync.Once
	serverErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if server != nil {
		server.Close()
	}
	os.Exit(code)
}

// shared is a client to the module server all tests share, flushed first.
func shared(t *testing.T) *redis.Client {
	t.Helper()
	serverOnce.Do(func() { server, serverErr = redistest.Start("redis-7.0", true) })
	if serverErr != nil {
		t.Fatal(serverErr)
	}
	rdb := redis.NewClient(&redis.Options{Addr: server.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	return rdb
}

// own is a server for one test, which may stop or pause it.
func own(t *testing.T) (*redistest.Server, *redis.Client) {
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

func loadSpec(t *testing.T, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "spec", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatal(err)
	}
}

// logLines captures a logger's lines.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logLines) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type logLine struct {
	Level string `json:"level"`
	Msg   string `json:"msg"`
}

func (l *logLines) lines(t *testing.T) []logLine {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logLine
	for _, raw := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if raw == "" {
			continue
		}
		var line logLine
		if err := json.Unmarshal([]byte(raw), &line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	return out
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// limiterOf is winlimit.New, the test failing on an option it refuses.
func limiterOf(t *testing.T, rdb redis.UniversalClient, opts ...winlimit.Option) *winlimit.Limiter {
	t.Helper()
	l, err := winlimit.New(rdb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
