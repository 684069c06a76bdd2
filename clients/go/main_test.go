package winlimit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/clients/go/internal/redistest"
)

// An edition is a server of one kind, started once for the whole run on first use.
type edition struct {
	name    string // what a test is named after
	server  string // the .cache folder
	module  bool
	backend Backend // what Auto chooses there

	once sync.Once
	srv  *redistest.Server
	err  error
}

var editions = []*edition{
	{name: "module", server: "redis-7.0", module: true, backend: Module},
	{name: "functions-7.0", server: "redis-7.0", backend: Functions},
	{name: "scripts-6.2", server: "redis-6.2", backend: Scripts},
	{name: "scripts-6.0", server: "redis-6.0", backend: Scripts},
}

var (
	clusterOnce sync.Once
	cluster     *redistest.Cluster
	clusterErr  error
)

func (e *edition) start(t testing.TB) *redistest.Server {
	t.Helper()
	e.once.Do(func() { e.srv, e.err = redistest.Start(e.server, e.module) })
	if e.err != nil {
		t.Fatalf("%s: %v", e.name, e.err)
	}
	return e.srv
}

// client is a go-redis client to the edition's server, closed when the test ends; the
// server is flushed first so every test starts from nothing.
func (e *edition) client(t testing.TB) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: e.start(t).Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	return rdb
}

func startCluster(t testing.TB) *redis.ClusterClient {
	t.Helper()
	clusterOnce.Do(func() { cluster, clusterErr = redistest.StartCluster("redis-7.0", 3, true) })
	if clusterErr != nil {
		t.Fatal(clusterErr)
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cluster.Addrs()[:1]})
	t.Cleanup(func() { _ = rdb.Close() })
	err := rdb.ForEachMaster(context.Background(), func(ctx context.Context, c *redis.Client) error {
		if err := c.FlushAll(ctx).Err(); err != nil {
			return err
		}
		return c.FunctionFlush(ctx).Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return rdb
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, e := range editions {
		if e.srv != nil {
			e.srv.Close()
		}
	}
	if cluster != nil {
		cluster.Close()
	}
	if code == 0 && testing.Verbose() {
		fmt.Println("servers stopped")
	}
	os.Exit(code)
}

// eachEdition runs f once per edition, as a subtest named after it.
func eachEdition(t *testing.T, f func(t *testing.T, e *edition, rdb *redis.Client)) {
	for _, e := range editions {
		t.Run(e.name, func(t *testing.T) { f(t, e, e.client(t)) })
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newLimiter is New, the test failing on an option New refuses.
func newLimiter(t testing.TB, rdb redis.UniversalClient, opts ...Option) *Limiter {
	t.Helper()
	l, err := New(rdb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
