package xds

import (
	"math/rand/v2"
	"time"

	"github.com/winlimit/winlimit/services/ratelimit/internal/settings"
)

// backoffState is the wait before a broken stream is opened again: XDS_CLIENT_BACKOFF_*.
type backoffState struct {
	conf    settings.Backoff
	current time.Duration
}

func newBackoff(conf settings.Backoff) *backoffState {
	return &backoffState{conf: conf, current: conf.Initial}
}

// next is the wait now; the one after is twice as long, up to Max.
func (b *backoffState) next() time.Duration {
	d := b.current
	b.current = min(2*b.current, b.conf.Max)
	if b.conf.Jitter && b.conf.RandomFactor > 0 {
		spread := float64(d) * b.conf.RandomFactor
		d += time.Duration(spread * (2*rand.Float64() - 1)) //nolint:gosec // spreading retries needs no secure random
	}
	return d
}

// reset starts again from Initial: the server answered.
func (b *backoffState) reset() { b.current = b.conf.Initial }
