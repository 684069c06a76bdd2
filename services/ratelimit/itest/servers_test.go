package itest

import (
	"testing"

	"github.com/winlimit/winlimit/services/ratelimit/internal/redistest"
)

// readyWithin is every readiness wait of this suite: a loaded 2-core machine starts a
// server slowly, and a wait that is too short fails a test that would pass.
const readyWithin = redistest.ReadyTimeout

// The servers are the Go client's test servers (internal/redistest is its copy): real
// redis-server processes from .cache on free loopback ports, stopped by PID.
type redisServer = redistest.Server

func startRedis(name string, module bool, extra ...string) (*redisServer, error) {
	return redistest.Start(name, module, extra...)
}

func freePort() (int, error) { return redistest.FreePort() }

// startCluster makes n primaries with the module into a cluster, closed when t ends.
func startCluster(t testing.TB, name string, n int) []*redisServer {
	t.Helper()
	c, err := redistest.StartCluster(name, n, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.Nodes
}
