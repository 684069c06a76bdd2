package xds

import (
	"testing"
	"time"

	"github.com/winlimit/winlimit/services/ratelimit/internal/settings"
)

func TestTheWaitDoublesUpToTheMaximumAndStartsAgainWhenTheServerAnswers(t *testing.T) {
	b := newBackoff(settings.Backoff{Initial: time.Second, Max: 5 * time.Second})
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second} {
		if got := b.next(); got != want {
			t.Fatalf("wait %d: %v, want %v", i+1, got, want)
		}
	}
	b.reset()
	if got := b.next(); got != time.Second {
		t.Fatalf("after a reset: %v", got)
	}
}

func TestJitterMovesEachWaitByAtMostTheRandomFactor(t *testing.T) {
	b := newBackoff(settings.Backoff{Initial: time.Second, Max: time.Second, RandomFactor: 0.5, Jitter: true})
	for range 1000 {
		if d := b.next(); d < 500*time.Millisecond || d > 1500*time.Millisecond {
			t.Fatalf("a wait of %v, outside 1 s ± 50%%", d)
		}
	}
}
