package httplimit

import (
	"context"
	"net/http"
	"time"

	winlimit "github.com/winlimit/winlimit/clients/go"
)

// Fixed is the Check of the common case, a fixed window per client, as ulule/limiter's
// stdlib middleware takes its rate: httplimit.New(limiter, httplimit.Fixed(time.Minute, 100)).
func Fixed(window time.Duration, limit int64, opts ...winlimit.CallOption) Check {
	return func(ctx context.Context, l winlimit.Deciding, key string, _ *http.Request) (winlimit.Decision, error) {
		return l.Fixed(ctx, key, window, limit, opts...)
	}
}

// Slide is the Check of a sliding window (or several) per client:
// httplimit.New(limiter, httplimit.Slide(winlimit.Window{Length: time.Hour, Limit: 3})).
func Slide(windows ...winlimit.Window) Check {
	return func(ctx context.Context, l winlimit.Deciding, key string, _ *http.Request) (winlimit.Decision, error) {
		return l.Slide(ctx, key, windows)
	}
}

// GCRA is the Check of a token bucket per client: limit units per period, smoothed.
func GCRA(period time.Duration, limit int64, opts ...winlimit.CallOption) Check {
	return func(ctx context.Context, l winlimit.Deciding, key string, _ *http.Request) (winlimit.Decision, error) {
		return l.GCRA(ctx, key, period, limit, opts...)
	}
}
