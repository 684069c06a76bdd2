// Package fields merges the rate-limit fields of stacked middlewares on one response: the
// middleware's plumbing, kept out of the winlimit package's API.
package fields

import (
	"net/http"
	"strconv"
	"strings"
)

// The styles Merge tells apart (winlimit.HeaderStyle's values).
const (
	draft11 = "draft-11"
	draft7  = "draft-7"
	legacy  = "legacy"
)

// rateLimitFields are the fields a style writes, in canonical form.
var rateLimitFields = []string{"Ratelimit-Policy", "Ratelimit", "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset", "Retry-After"}

// Merge merges added into the rate-limit fields on already has (another middleware's
// on the same response): draft-11 lists both policies (on's first); draft-7 and legacy keep
// the fields of the one with the least remaining (on's on a tie); Retry-After is on's if it
// has one. The other fields of on are left alone.
func Merge(on http.Header, added http.Header, style string) {
	if !hasAny(on) {
		copyFields(on, added)
		return
	}
	retry := on.Get("Retry-After")
	if retry == "" {
		retry = added.Get("Retry-After")
	}
	switch style {
	case draft11:
		for _, k := range []string{"RateLimit-Policy", "RateLimit"} {
			if v := on.Get(k); v != "" {
				on.Set(k, v+", "+added.Get(k))
			} else {
				on.Set(k, added.Get(k))
			}
		}
	case draft7, legacy:
		if remaining(added, style) < remaining(on, style) {
			for _, k := range rateLimitFields {
				on.Del(k)
			}
			copyFields(on, added)
		}
	}
	if retry != "" {
		on.Set("Retry-After", retry)
	}
}

func hasAny(h http.Header) bool {
	for _, k := range rateLimitFields {
		if _, ok := h[k]; ok {
			return true
		}
	}
	return false
}

func copyFields(dst, src http.Header) {
	for k, v := range src {
		dst[http.CanonicalHeaderKey(k)] = v
	}
}

func remaining(h http.Header, style string) int64 {
	text := h.Get("X-RateLimit-Remaining")
	if style == draft7 {
		_, after, ok := strings.Cut(h.Get("RateLimit"), "remaining=")
		if !ok {
			return 1<<63 - 1
		}
		text, _, _ = strings.Cut(after, ",")
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 1<<63 - 1 // fields not of this style: any of ours has less
	}
	return n
}
