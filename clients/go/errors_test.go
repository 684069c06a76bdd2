package winlimit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/redis/go-redis/v9"
)

// IsRedisError is the one classifier: Redis's errors (a middleware's 503) against the
// application's (its own 500).
func TestIsRedisErrorTellsRedissErrorsFromTheApplications(t *testing.T) {
	for name, c := range map[string]struct {
		err  error
		want bool
	}{
		"connection refused":  {&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, true},
		"limiter's timeout":   {&TimeoutError{Waited: 100}, true},
		"deadline exceeded":   {context.DeadlineExceeded, true},
		"connection closed":   {io.EOF, true},
		"client closed":       {redis.ErrClosed, true},
		"pool timeout":        {redis.ErrPoolTimeout, true},
		"breaker open":        {ErrUnavailable, true},
		"LOADING reply":       {serverError("LOADING Redis is loading the dataset in memory"), true},
		"WRONGTYPE reply":     {serverError("WRONGTYPE Operation against a key holding the wrong kind of value"), true},
		"module not loaded":   {translate(serverError("ERR unknown command 'WINLIMIT.FIXED'")), true},
		"wrapped by the app":  {fmt.Errorf("checking: %w", ErrUnavailable), true},
		"nil":                 {nil, false},
		"argument error":      {argError("window", "must be positive"), false},
		"cancelled request":   {context.Canceled, false},
		"a bug in a check":    {errors.New("a bug in the check"), false},
		"an invalid argument": {fmt.Errorf("checking: %w", argError("cost", "must not be negative")), false},
	} {
		if got := IsRedisError(c.err); got != c.want {
			t.Errorf("%s: %v, not %v", name, got, c.want)
		}
	}
}
