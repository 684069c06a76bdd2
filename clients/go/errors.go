package winlimit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrModuleNotLoaded is matched (errors.Is) by the error of a call that reached a server
// without the winlimit module while the limiter was told to use the module.
var ErrModuleNotLoaded = errors.New("winlimit: the winlimit module is not loaded")

// ErrInvalidReply is matched by the error of a call whose reply is not five integers.
var ErrInvalidReply = errors.New("winlimit: invalid reply")

// ErrNoPolicy is matched by Headers' error for a decision none of whose policies has the
// reply's limit as its quota.
var ErrNoPolicy = errors.New("winlimit: no policy whose quota is its limit")

// ErrMissingPermission is matched by the error of a call the ACL user may not make: the
// message names the rule to add.
var ErrMissingPermission = errors.New("winlimit: missing ACL permission")

// moduleNotLoadedFix is what a ModuleNotLoadedError adds to the server's text, after " -- ".
const moduleNotLoadedFix = "the winlimit module is not loaded on this server. Load it at start-up with " +
	"`redis-server --loadmodule /path/to/libwinlimit.so` (or `loadmodule /path/to/libwinlimit.so` " +
	"in redis.conf), or at run time with `MODULE LOAD /path/to/libwinlimit.so`; in a cluster, " +
	"on every node."

// ModuleNotLoadedError is the server's unknown-command error, with the fix.
type ModuleNotLoadedError struct {
	Server error // the server's own error
}

// Error gives the server's text, then " -- " and the fix.
func (e *ModuleNotLoadedError) Error() string {
	return "winlimit: " + e.Server.Error() + " -- " + moduleNotLoadedFix
}

// Is matches ErrModuleNotLoaded.
func (e *ModuleNotLoadedError) Is(target error) bool { return target == ErrModuleNotLoaded }

// Unwrap gives the server's error.
func (e *ModuleNotLoadedError) Unwrap() error { return e.Server }

// ArgumentError is a call or option refused before anything is sent.
type ArgumentError struct {
	Argument string // the argument or option refused
	Reason   string
}

// Error says which argument and why.
func (e *ArgumentError) Error() string {
	return fmt.Sprintf("winlimit: %s: %s", e.Argument, e.Reason)
}

func argError(argument, format string, args ...any) error {
	return &ArgumentError{Argument: argument, Reason: fmt.Sprintf(format, args...)}
}

type permissionError struct {
	server error
	rule   string
	what   string
}

func (e *permissionError) Error() string {
	return fmt.Sprintf("winlimit: %v -- %s needs the ACL rule %s for this user (see the client README, \"Backends\")",
		e.server, e.what, e.rule)
}

func (e *permissionError) Is(target error) bool { return target == ErrMissingPermission }
func (e *permissionError) Unwrap() error        { return e.server }

// TimeoutError is a call with no answer from Redis within the limiter's timeout. It is
// matched by errors.Is(err, context.DeadlineExceeded).
type TimeoutError struct {
	Waited time.Duration // the limiter's timeout
}

// Error says how long the limiter waited, in ms as the other clients write it.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no answer from Redis within %d ms", e.Waited.Milliseconds()) // the text every client logs
}

// Is matches context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// Timeout is true, as net.Error has it.
func (e *TimeoutError) Timeout() bool { return true }

// IsRedisError tells Redis's errors (down, slow, failing, refusing, the module missing, the
// breaker open) from the application's (an ArgumentError, a cancelled request, a bug in a
// check): a middleware answers the first 503 (or lets the request through with FailOpen)
// and hands the second to the application as its own. It is the package's one classifier;
// which of Redis's errors the circuit breaker counts is the breaker's business.
func IsRedisError(err error) bool {
	var ae *ArgumentError
	if err == nil || errors.As(err, &ae) || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	var re interface{ RedisError() }
	return errors.As(err, &ne) || errors.As(err, &re) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrUnavailable) ||
		errors.Is(err, redis.ErrClosed) || errors.Is(err, redis.ErrPoolTimeout)
}
