package itest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const perMinute = `domain: api
descriptors:
  - key: user
    rate_limit:
      unit: minute
      requests_per_unit: 3
  - key: plan
    rate_limit:
      unit: minute
      requests_per_unit: 100
`

// upstreamSequence is a user's fixed minute: three allowed, the fourth refused, and the plan
// descriptor of the refused request given back; then two of the plan's units given back by
// is_negative_hits (on a cluster, on the node that holds the plan's key).
func upstreamSequence(user string) []step {
	both := request("api", entries("user", user), entries("plan", "p-"+user))
	refund := withHits(entries("plan", "p-"+user), 2)
	refund.IsNegativeHits = true
	return []step{
		{both, ok, []want{{code: ok, remaining: 2, perUnit: 3}, {code: ok, remaining: 99}}},
		{both, ok, []want{{code: ok, remaining: 1}, {code: ok, remaining: 98}}},
		{both, ok, []want{{code: ok, remaining: 0}, {code: ok, remaining: 97}}},
		{both, over, []want{{code: over, remaining: 0}, {code: ok, remaining: 97}}},
		{request("api", entries("plan", "p-"+user)), ok, []want{{code: ok, remaining: 96}}},
		{request("api", refund), ok, []want{{code: ok, remaining: 98}}},
	}
}

func TestEveryBackendGivesUpstreamsAnswersAndARejectionTakesNothing(t *testing.T) {
	eachEdition(t, func(t *testing.T, url string) {
		s := startRLS(t, url, map[string]string{"api.yaml": perMinute}, nil)
		inOneWindow(t, url, time.Minute, 2*time.Second, func() error { return s.sequence(t, upstreamSequence("u1")) })
		if got, want := backendUsed(t, url), strings.SplitN(t.Name(), "/", 2)[1]; !strings.HasPrefix(want, got) {
			t.Fatalf("the server shows the %s backend was used", got)
		}
	})
}

// backendUsed reads from the server which edition of winlimit decided: the library loaded
// as a function, a script cached, or neither (the module).
func backendUsed(t *testing.T, url string) string {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: url})
	defer rdb.Close()
	ctx := context.Background()
	if libs, err := rdb.FunctionList(ctx, redis.FunctionListQuery{}).Result(); err == nil && len(libs) > 0 {
		return "functions"
	}
	info, err := rdb.Info(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(info, "number_of_cached_scripts:0") {
		return "scripts"
	}
	return "module"
}

func TestAClusterOfThreePrimariesDecidesKeysOnEveryNode(t *testing.T) {
	nodes := startCluster(t, "redis-7.0", 3)
	seeds := []string{}
	for _, n := range nodes {
		seeds = append(seeds, n.Addr())
	}
	// An upstream cluster deployment's settings: upstream requires a pipeline window there.
	s := startRLS(t, strings.Join(seeds, ","), map[string]string{"api.yaml": perMinute},
		env{"REDIS_TYPE": "cluster", "REDIS_PIPELINE_WINDOW": "150us"})
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: seeds})
	defer rdb.Close()
	served := map[string]bool{}
	inOneWindow(t, nodes[0].Addr(), time.Minute, 3*time.Second, func() error {
		for i := 0; i < 12; i++ {
			user := fmt.Sprintf("c%d", i)
			if err := s.sequence(t, upstreamSequence(user)); err != nil {
				return err
			}
		}
		return nil
	})
	// The counters are spread over the primaries: each node holds some.
	err := rdb.ForEachMaster(context.Background(), func(ctx context.Context, c *redis.Client) error {
		n, err := c.DBSize(ctx).Result()
		if n > 0 {
			served[c.Options().Addr] = true
		}
		return err
	})
	if err != nil || len(served) != 3 {
		t.Fatalf("counters on %d of 3 primaries (%v)", len(served), err)
	}
}
