package winlimit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/clients/go/internal/redistest"
)

// keysOnEveryNode gives keys whose slots are served by different primaries.
func keysOnEveryNode(t *testing.T, rdb *redis.ClusterClient) []string {
	t.Helper()
	byNode := map[string]string{}
	for i := 0; len(byNode) < 3 && i < 1000; i++ {
		key := fmt.Sprintf("user:%d", i)
		node, err := rdb.MasterForKey(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := byNode[node.Options().Addr]; !ok {
			byNode[node.Options().Addr] = key
		}
	}
	if len(byNode) != 3 {
		t.Fatalf("keys reached %d nodes", len(byNode))
	}
	keys := []string{}
	for _, k := range byNode {
		keys = append(keys, k)
	}
	return keys
}

func TestAClusterOfThreePrimariesDecidesOnEveryNodeWithEveryBackend(t *testing.T) {
	rdb := startCluster(t)
	keys := keysOnEveryNode(t, rdb)
	for _, b := range []Backend{Auto, Functions, Scripts} {
		t.Run(string(b), func(t *testing.T) {
			l := newLimiter(t, rdb, WithBackend(b))
			for _, key := range keys {
				key := key + ":" + string(b)
				for want := int64(1); want >= 0; want-- {
					d := must(t)(l.Fixed(ctx, key, time.Minute, 2))
					if !d.Allowed || d.Remaining != want {
						t.Fatalf("%s: %+v", key, d)
					}
				}
				if d := must(t)(l.Fixed(ctx, key, time.Minute, 2)); d.Allowed {
					t.Fatalf("%s: third call %+v", key, d)
				}
				wantBackend := b
				if b == Auto {
					wantBackend = Module
				}
				if d := must(t)(l.Slide(ctx, key+":s", []Window{{time.Second, 1}})); d.Backend != string(wantBackend) {
					t.Fatalf("answered by %s", d.Backend)
				}
			}
		})
	}
	// The library was loaded on each node that served a key: FUNCTION LOAD goes to one node.
	err := rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		if v, err := c.Do(ctx, "FCALL_RO", "winlimit_version", 0).Text(); err != nil || v != ownLibrary.version {
			return fmt.Errorf("%s: %q %v", c.Options().Addr, v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAStoppedClusterNodeFallsBackForItsKeysOnly(t *testing.T) {
	rdb := startCluster(t)
	keys := keysOnEveryNode(t, rdb)
	l := newLimiter(t, rdb, WithFallback(NewMemory()), WithTimeout(200*time.Millisecond), WithBreaker(1, time.Hour),
		WithLogger(discardLogger()))
	for _, key := range keys {
		must(t)(l.Fixed(ctx, key, time.Minute, 10)) // every node detected
	}
	stopped, err := rdb.MasterForKey(ctx, keys[0])
	if err != nil {
		t.Fatal(err)
	}
	var node *redistest.Server
	for _, s := range cluster.Nodes {
		if s.Addr() == stopped.Options().Addr {
			node = s
		}
	}
	if err := node.Pause(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = node.Resume() }()
	for round := 0; round < 2; round++ {
		for i, key := range keys {
			d := must(t)(l.Fixed(ctx, key, time.Minute, 10))
			if want := map[bool]string{true: "memory", false: "module"}[i == 0]; d.Backend != want {
				t.Fatalf("round %d, %s: decided by %s, not %s", round, key, d.Backend, want)
			}
		}
	}
	if l.breakerState(ctx, keys[0]) != BreakerOpen || l.breakerState(ctx, keys[1]) != BreakerClosed {
		t.Fatal("the breakers are not per node")
	}
}
