package itest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// redisTimeout is the service's REDIS_TIMEOUT in these tests. Once the breaker is open an
// answer must come without waiting on Redis: within half of it, a bound that shows no call
// waited yet holds on a loaded machine (a bound in ms is for the benchmark, bench/results/rls.md).
const (
	redisTimeout = 2 * time.Second
	answerFast   = redisTimeout / 2
)

// failureSettings bound each call by redisTimeout and show the breaker's state in /metrics.
var failureSettings = env{"REDIS_TIMEOUT": redisTimeout.String(), "USE_PROMETHEUS": "true"}

func (s *rls) askCode(t *testing.T) (codes.Code, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	started := time.Now()
	_, err := s.client.ShouldRateLimit(ctx, request("api", entries("user", "f")))
	return status.Code(err), time.Since(started)
}

// breakerOpen is whether the service's breaker is open, as its Go client's metrics say.
func breakerOpen(t *testing.T, s *rls) bool {
	t.Helper()
	_, metrics := get(t, "http://"+s.promAddr+"/metrics")
	return strings.Contains(metrics, `winlimit_breaker_state{limiter="ratelimit"} 2`)
}

// untilUnavailable asks until the answer is UNAVAILABLE and the breaker is open (it opens
// after a few calls bounded by REDIS_TIMEOUT; a killed Redis refuses fast before that, and a
// call then still waits on the client's retries), then wants the next answers UNAVAILABLE
// within answerFast.
func untilUnavailable(t *testing.T, s *rls) {
	t.Helper()
	deadline := time.Now().Add(readyWithin)
	for code, _ := s.askCode(t); ; code, _ = s.askCode(t) {
		if code == codes.Unavailable && breakerOpen(t, s) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %v after %v", code, readyWithin)
		}
	}
	for i := 0; i < 10; i++ {
		if code, took := s.askCode(t); code != codes.Unavailable || took > answerFast {
			t.Fatalf("answer %d: %v in %v", i, code, took)
		}
	}
}

func untilOK(t *testing.T, s *rls) {
	t.Helper()
	deadline := time.Now().Add(readyWithin)
	for code, _ := s.askCode(t); code != codes.OK; code, _ = s.askCode(t) {
		if time.Now().After(deadline) {
			t.Fatalf("no recovery in %v: %v", readyWithin, code)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func health(t *testing.T, s *rls) int {
	t.Helper()
	resp, err := http.Get("http://" + s.httpAddr + "/healthcheck")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestAStoppedRedisIsUnavailableAtOnceThenRecovers(t *testing.T) {
	srv, err := startRedis("redis-7.0", true)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s := startRLS(t, srv.Addr(), map[string]string{"api.yaml": perHour}, failureSettings)
	untilOK(t, s)
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	untilUnavailable(t, s)
	if code := health(t, s); code != http.StatusInternalServerError {
		t.Fatalf("healthcheck %d with Redis stopped", code)
	}
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	untilOK(t, s)
}

func TestAKilledRedisIsUnavailableAndUnhealthyThenRecoversWhenRestarted(t *testing.T) {
	srv, err := startRedis("redis-7.0", true)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s := startRLS(t, srv.Addr(), map[string]string{"api.yaml": perHour}, failureSettings)
	untilOK(t, s)
	if code := health(t, s); code != http.StatusOK {
		t.Fatalf("healthcheck %d with Redis up", code)
	}
	srv.Stop()
	untilUnavailable(t, s)
	if code := health(t, s); code != http.StatusInternalServerError {
		t.Fatalf("healthcheck %d with Redis killed", code)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	untilOK(t, s)
	if code := health(t, s); code != http.StatusOK {
		t.Fatalf("healthcheck %d after the restart", code)
	}
}
