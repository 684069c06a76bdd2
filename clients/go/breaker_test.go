package winlimit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/clients/go/internal/redistest"
)

// pausedServer is a server of its own, stopped with SIGSTOP by the test.
func pausedServer(t *testing.T) (*redistest.Server, *redis.Client) {
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

func TestAHungRedisOpensTheBreakerAndTheFallbackDecidesWithoutSending(t *testing.T) {
	srv, rdb := pausedServer(t)
	fallback := NewMemory()
	l := newLimiter(t, rdb, WithFallback(fallback), WithTimeout(100*time.Millisecond), WithLogger(discardLogger()), WithBreaker(3, time.Hour))
	must(t)(l.Fixed(ctx, "k", time.Minute, 5)) // the backend detected while the server answers
	calls := commandCalls(t, rdb)
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // each waits out the timeout, then the fallback answers
		if d := must(t)(l.Fixed(ctx, "k", time.Minute, 5)); d.Backend != "memory" {
			t.Fatalf("call %d during the outage: %+v", i, d)
		}
	}
	if l.breakerState(ctx, "k") != BreakerOpen {
		t.Fatal("the breaker did not open after 3 failures")
	}
	for i := 0; i < 20; i++ {
		d := must(t)(l.Fixed(ctx, "k", time.Minute, 5, Cost(2)))
		if d.Backend != "memory" {
			t.Fatalf("%+v", d)
		}
	}
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	// At most the 3 timed-out calls reach the server (as it resumes); the 20 sent while
	// the breaker was open never left.
	if got, most := callCount(t, commandCalls(t, rdb)), callCount(t, calls)+3; got > most {
		t.Fatalf("%d calls at the server, more than %d", got, most)
	}
}

func TestWithoutAFallbackAnOpenBreakerFailsFast(t *testing.T) {
	srv, rdb := pausedServer(t)
	l := newLimiter(t, rdb, WithTimeout(100*time.Millisecond), WithLogger(discardLogger()), WithBreaker(1, time.Hour))
	must(t)(l.Fixed(ctx, "k", time.Minute, 5))
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Resume() }()
	if _, err := l.Fixed(ctx, "k", time.Minute, 5); err == nil || errors.Is(err, ErrUnavailable) {
		t.Fatalf("the failing call: %v", err)
	}
	started := time.Now()
	_, err := l.Fixed(ctx, "k", time.Minute, 5)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("while open: %v", err)
	}
	if waited := time.Since(started); waited >= 100*time.Millisecond {
		t.Fatalf("failing fast took the timeout: %v", waited)
	}
}

func TestTheProbeClosesTheBreakerOnceRedisAnswers(t *testing.T) {
	srv, rdb := pausedServer(t)
	l := newLimiter(t, rdb, WithFallback(NewMemory()), WithTimeout(100*time.Millisecond), WithLogger(discardLogger()), WithBreaker(1, 50*time.Millisecond), WithBreakerMaxOpen(50*time.Millisecond))
	must(t)(l.Fixed(ctx, "k", time.Minute, 5))
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	must(t)(l.Fixed(ctx, "k", time.Minute, 5))
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(redistest.ReadyTimeout) // Redis back: a readiness wait
	for {
		d := must(t)(l.Fixed(ctx, "k", time.Minute, 5))
		if d.Backend == "module" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("decisions never came back from Redis")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if l.breakerState(ctx, "k") != BreakerClosed {
		t.Fatal("Redis decides but the breaker is not closed")
	}
}

func TestAClientThatStopsAtTheDeadlineTimesOutByTheLimitersTimeout(t *testing.T) {
	srv, _ := pausedServer(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true, MaxRetries: -1})
	defer rdb.Close()
	l := newLimiter(t, rdb, WithTimeout(100*time.Millisecond), WithLogger(discardLogger()))
	must(t)(l.Fixed(ctx, "k", time.Minute, 5))
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Resume() }()
	_, err := l.Fixed(ctx, "k", time.Minute, 5)
	var te *TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v", err)
	}
}
