package itest

import (
	"context"
	"net/http"
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

func (s *rls) askCode(t *testing.T) (codes.Code, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	started := time.Now()
	_, err := s.client.ShouldRateLimit(ctx, request("api", entries("user", "f")))
	return status.Code(err), time.Since(started)
}

// untilUnavailable asks until the answer is UNAVAILABLE (the breaker opens after a few
// calls bounded by REDIS_TIMEOUT), then wants the next answers UNAVAILABLE within answerFast.
func untilUnavailable(t *testing.T, s *rls) {
	t.Helper()
	deadline := time.Now().Add(readyWithin)
	for code, took := s.askCode(t); ; code, took = s.askCode(t) {
		if code == codes.Unavailable && took < answerFast {
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
	s := startRLS(t, srv.Addr(), map[string]string{"api.yaml": perHour}, env{"REDIS_TIMEOUT": redisTimeout.String()})
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
	s := startRLS(t, srv.Addr(), map[string]string{"api.yaml": perHour}, env{"REDIS_TIMEOUT": redisTimeout.String()})
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
