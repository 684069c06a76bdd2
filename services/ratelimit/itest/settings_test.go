package itest

// Upstream's settings that change what the service does, each shown by what it changes.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
)

func TestCacheKeyPrefixStartsTheCounterKeyReadmeNames(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perMinute}, env{"CACHE_KEY_PREFIX": "edge:"})
	s.ask(t, request("api", entries("user", "u")))
	rdb := redis.NewClient(&redis.Options{Addr: url})
	defer rdb.Close()
	keys, err := rdb.Keys(context.Background(), "*").Result()
	if err != nil || len(keys) != 1 || keys[0] != "edge:api_user_u_fixed:60000" {
		t.Fatalf("keys %v (%v), want [edge:api_user_u_fixed:60000]", keys, err)
	}
}

func TestNearLimitRatioAndPrometheusPathAreHonoured(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perHour},
		env{"USE_PROMETHEUS": "true", "PROMETHEUS_PATH": "/stats", "NEAR_LIMIT_RATIO": "0.5"})
	inOneWindow(t, url, time.Hour, 5*time.Second, func() error {
		for i := 0; i < 7; i++ {
			s.ask(t, request("api", entries("user", "n")))
		}
		return nil
	})
	_, metrics := get(t, "http://"+s.promAddr+"/stats")
	// 10 an hour at 0.5: the 6th and 7th hits are past 5 (at upstream's 0.8, none).
	if line := `ratelimit_service_rate_limit_near_limit{domain="api",key1="user",key2=""} 2`; !strings.Contains(metrics, line) {
		t.Fatalf("no %s in\n%s", line, grepLines(metrics, "ratelimit_service"))
	}
}

func TestLocalCacheSizeAnswersARejectedKeyFromTheClientsCache(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perMinute},
		env{"USE_PROMETHEUS": "true", "LOCAL_CACHE_SIZE_IN_BYTES": "1048576"})
	user := request("api", entries("user", "c"))
	inOneWindow(t, url, time.Minute, 2*time.Second, func() error {
		steps := []step{}
		for i := uint32(1); i <= 3; i++ {
			steps = append(steps, step{user, ok, []want{{code: ok, remaining: 3 - i}}})
		}
		return s.sequence(t, append(steps, step{user, over, []want{{code: over}}}, step{user, over, []want{{code: over}}}))
	})
	_, metrics := get(t, "http://"+s.promAddr+"/metrics")
	for _, line := range []string{
		`winlimit_decisions_total{outcome="rejected",policy="ratelimit"} 1`,
		`winlimit_decisions_total{outcome="cached",policy="ratelimit"} 1`,
	} {
		if !strings.Contains(metrics, line) {
			t.Errorf("no %s in\n%s", line, grepLines(metrics, "winlimit_decisions_total"))
		}
	}
}

// authedRedis is a server of its own (a password would lock the shared ones) with a password
// for the default user and an ACL user rls.
func authedRedis(t *testing.T) string {
	t.Helper()
	srv, err := startRedis("redis-7.0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.Do(ctx, "ACL", "SETUSER", "rls", "on", ">rls-secret", "~*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ConfigSet(ctx, "requirepass", "s3cret").Err(); err != nil {
		t.Fatal(err)
	}
	return srv.Addr()
}

func TestRedisAuthIsAPasswordOrAUserAndPassword(t *testing.T) {
	url := authedRedis(t)
	for name, auth := range map[string]string{"password": "s3cret", "user:password": "rls:rls-secret"} {
		t.Run(name, func(t *testing.T) {
			s := startRLS(t, url, map[string]string{"api.yaml": perHour}, env{"REDIS_AUTH": auth})
			expect(t, "authenticated", s.ask(t, request("api", entries("user", name))), ok, want{code: ok, remaining: 9})
		})
	}
}

func TestAUnixSocketIsUpstreamsDefaultSocketType(t *testing.T) {
	dir, err := os.MkdirTemp("", "rls-sock-") // short: a socket's path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "redis.sock")
	srv, err := startRedis("redis-7.0", true, "--unixsocket", sock, "--unixsocketperm", "700")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	s := startRLS(t, sock, map[string]string{"api.yaml": perHour}, env{"REDIS_SOCKET_TYPE": "unix"})
	expect(t, "over the socket", s.ask(t, request("api", entries("user", "x"))), ok, want{code: ok, remaining: 9})
}

func TestLogFormatJSONWritesOneObjectALine(t *testing.T) {
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perMinute}, env{"LOG_FORMAT": "json"})
	s.waitLog(t, "listening")
	for _, line := range strings.Split(strings.TrimSpace(s.log.String()), "\n") {
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil || entry["msg"] == nil {
			t.Fatalf("not a JSON log entry (%v): %s", err, line)
		}
	}
}

func TestTheDebugPortShowsTheConfigurationInForce(t *testing.T) {
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perMinute}, nil)
	code, body := get(t, "http://"+s.debugAddr+"/rlconfig")
	if code != 200 || !strings.Contains(body, "domains: [api]") {
		t.Fatalf("/rlconfig: %d %q", code, body)
	}
}

func TestGRPCMaxConnectionAgeClosesAConnectionAsUpstream(t *testing.T) {
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perHour},
		env{"GRPC_MAX_CONNECTION_AGE": "1s", "GRPC_MAX_CONNECTION_AGE_GRACE": "1s"})
	conn, err := grpc.NewClient(s.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), readyWithin)
	defer cancel()
	if _, err := pb.NewRateLimitServiceClient(conn).ShouldRateLimit(ctx, request("api", entries("user", "a"))); err != nil {
		t.Fatal(err)
	}
	// The server's GOAWAY after about a second takes the connection out of READY; at
	// upstream's default age (24 h) it would stay until the wait ends.
	for state := conn.GetState(); state == connectivity.Ready; state = conn.GetState() {
		if !conn.WaitForStateChange(ctx, state) {
			t.Fatalf("the connection still READY after %v", readyWithin)
		}
	}
}
