package winlimit

import (
	"net/http"
	"strconv"
	"time"
)

// HeaderStyle chooses the rate-limit fields a response gets.
type HeaderStyle string

// The header styles of every winlimit middleware (clients/spec/header_styles.json).
const (
	// Draft11 is Decision.Headers without Retry-After, which every style adds on a rejection.
	Draft11 HeaderStyle = "draft-11"
	// Draft7 is RateLimit-Policy: q;w=s and RateLimit: limit=q, remaining=r, reset=t.
	Draft7 HeaderStyle = "draft-7"
	// Legacy is X-RateLimit-Limit, -Remaining and -Reset (Unix seconds, rounded up).
	Legacy HeaderStyle = "legacy"
	// NoHeaders sends none of them (Retry-After still, on a rejection).
	NoHeaders HeaderStyle = "none"
)

// ParseHeaderStyle reads a style by its name ("draft-11", "draft-7", "legacy", "none").
func ParseHeaderStyle(name string) (HeaderStyle, error) {
	switch s := HeaderStyle(name); s {
	case Draft11, Draft7, Legacy, NoHeaders:
		return s, nil
	}
	return "", argError("headers", `must be one of "draft-11", "draft-7", "legacy", "none", not %q`, name)
}

// StyleHeaders gives the decision's fields in style; now dates Legacy's X-RateLimit-Reset.
func (d *Decision) StyleHeaders(style HeaderStyle, now time.Time) (http.Header, error) {
	if _, err := ParseHeaderStyle(string(style)); err != nil {
		return nil, err
	}
	full, err := d.Headers()
	if err != nil {
		return nil, err
	}
	out := http.Header{}
	policy, _ := d.Policy()
	reset := d.ResetAfter
	if !d.Allowed && d.RetryAfter > 0 {
		reset = min(reset, d.RetryAfter)
	}
	switch style {
	case Draft11:
		out.Set("RateLimit-Policy", full.Get("RateLimit-Policy"))
		out.Set("RateLimit", full.Get("RateLimit"))
	case Draft7:
		out.Set("RateLimit-Policy", itoa(policy.Quota)+";w="+itoa(ceilSeconds(policy.Window)))
		out.Set("RateLimit", "limit="+itoa(policy.Quota)+", remaining="+itoa(d.Remaining)+", reset="+itoa(ceilSeconds(reset)))
	case Legacy:
		out.Set("X-RateLimit-Limit", itoa(policy.Quota))
		out.Set("X-RateLimit-Remaining", itoa(d.Remaining))
		out.Set("X-RateLimit-Reset", itoa(ceilDiv(now.UnixMilli()+reset.Milliseconds(), 1000)))
	}
	if retry := full.Get("Retry-After"); retry != "" {
		out.Set("Retry-After", retry)
	}
	return out, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
