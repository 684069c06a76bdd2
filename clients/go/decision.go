package winlimit

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Decision is a winlimit reply: the five fields every command answers, the policies of the
// call, and which edition of winlimit answered.
type Decision struct {
	Allowed bool
	// Limit, Remaining and ResetAfter describe the binding pair of the call.
	Limit     int64
	Remaining int64
	// RetryAfter is when a retry can succeed: 0 when allowed, -1ms when none ever can.
	RetryAfter time.Duration
	ResetAfter time.Duration
	// Policies lists every policy the call checked.
	Policies []Policy
	// Backend is "module", "functions" (FCALL), "scripts" (EVALSHA) or "memory" (a fallback).
	Backend string
	// Cached is true when the rejection cache answered without Redis.
	Cached bool
}

// decisionFrom reads a command's reply: five integers.
func decisionFrom(reply any, policies []Policy, backend string) (Decision, error) {
	values, ok := reply.([]any)
	if !ok || len(values) != 5 {
		return Decision{}, fmt.Errorf("%w: a winlimit reply has five integers, not %v", ErrInvalidReply, reply)
	}
	var n [5]int64
	for i, v := range values {
		if n[i], ok = v.(int64); !ok {
			return Decision{}, fmt.Errorf("%w: a winlimit reply has five integers, not %v", ErrInvalidReply, reply)
		}
	}
	return fromFive(n, policies, backend), nil
}

func fromFive(n [5]int64, policies []Policy, backend string) Decision {
	return Decision{
		Allowed: n[0] == 1, Limit: n[1], Remaining: n[2],
		RetryAfter: time.Duration(n[3]) * time.Millisecond,
		ResetAfter: time.Duration(n[4]) * time.Millisecond,
		Policies:   policies, Backend: backend,
	}
}

func (d *Decision) five() [5]int64 {
	allowed := int64(0)
	if d.Allowed {
		allowed = 1
	}
	return [5]int64{allowed, d.Limit, d.Remaining, d.RetryAfter.Milliseconds(), d.ResetAfter.Milliseconds()}
}

// Policy gives the binding policy: the one whose quota is the reply's limit; of several, the
// longest window. ok is false when no policy has that quota.
func (d *Decision) Policy() (p Policy, ok bool) {
	for _, c := range d.Policies {
		if c.Quota == d.Limit && (!ok || c.Window > p.Window) {
			p, ok = c, true
		}
	}
	return p, ok
}

// ceilSeconds is whole seconds rounded up: the fields carry no fractions, and rounding down
// would tell a client to come back too early.
func ceilSeconds(d time.Duration) int64 {
	return ceilDiv(d.Milliseconds(), 1000)
}

// sfString serialises a Structured Field String (RFC 9651 4.1.6).
func sfString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// Headers gives the response fields of draft-ietf-httpapi-ratelimit-headers-11:
// RateLimit-Policy (every policy), RateLimit (the binding one) and, when rejected and a
// retry can succeed, Retry-After (whole seconds, rounded up, at least 1; RateLimit's t is
// then no later). The error matches ErrNoPolicy when no policy has the reply's limit.
func (d *Decision) Headers() (http.Header, error) {
	policy, ok := d.Policy()
	if !ok {
		return nil, fmt.Errorf("%w (%d): %v", ErrNoPolicy, d.Limit, d.Policies)
	}
	list := make([]string, len(d.Policies))
	for i, p := range d.Policies {
		list[i] = sfString(p.Name) + ";q=" + strconv.FormatInt(p.Quota, 10) + ";w=" + strconv.FormatInt(ceilSeconds(p.Window), 10)
	}
	h := http.Header{}
	h.Set("RateLimit-Policy", strings.Join(list, ", "))
	reset := ceilSeconds(d.ResetAfter)
	if retry, ok := d.retrySeconds(); ok {
		reset = min(reset, retry)
		h.Set("Retry-After", strconv.FormatInt(retry, 10))
	}
	h.Set("RateLimit", sfString(policy.Name)+";r="+strconv.FormatInt(d.Remaining, 10)+";t="+strconv.FormatInt(reset, 10))
	return h, nil
}

// retrySeconds is Retry-After's value, for a rejection a retry can end.
func (d *Decision) retrySeconds() (int64, bool) {
	if d.Allowed || d.RetryAfter <= 0 {
		return 0, false
	}
	return max(1, ceilSeconds(d.RetryAfter)), true
}
