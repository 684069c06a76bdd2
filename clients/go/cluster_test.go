package winlimit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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
			l := New(rdb, WithBackend(b))
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
