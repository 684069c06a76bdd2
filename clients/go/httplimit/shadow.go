package httplimit

import (
	"bytes"
	"container/list"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	winlimit "github.com/winlimit/winlimit/clients/go"
)

// shadowLog says when each key was last warned about, so a flood over the limit is one
// line per quiet period (clients/spec/shadow.json). Not safe for concurrent use: the
// middleware locks around it.
type shadowLog struct {
	keys  int
	clock func() float64
	order *list.List // of *quiet, warned about longest ago first
	byKey map[string]*list.Element
}

type quiet struct {
	key   string
	until float64
}

func newShadowLog(keys int, clock func() float64) *shadowLog {
	return &shadowLog{keys: keys, clock: clock, order: list.New(), byKey: map[string]*list.Element{}}
}

// warning is the line for a rejection of key that shadow mode let through (rateLimit, the
// RateLimit field it was sent), or "" while the key's quiet period lasts: the rejection's
// RetryAfter or, when no retry can succeed, its binding policy's window.
func (s *shadowLog) warning(key string, d *winlimit.Decision, rateLimit string) string {
	now := s.clock()
	if el, ok := s.byKey[key]; ok {
		if now < el.Value.(*quiet).until {
			return ""
		}
		s.order.Remove(el)
		delete(s.byKey, key)
	}
	quietMs := float64(d.RetryAfter.Milliseconds())
	if d.RetryAfter <= 0 {
		p, _ := d.Policy()
		quietMs = float64(p.Window.Milliseconds())
	}
	s.byKey[key] = s.order.PushBack(&quiet{key: key, until: now + quietMs})
	for s.order.Len() > s.keys {
		front := s.order.Front()
		delete(s.byKey, front.Value.(*quiet).key)
		s.order.Remove(front)
	}
	return fmt.Sprintf("winlimit: shadow mode let through a request over the limit for %s: RateLimit: %s, retry after %d ms",
		quoted(key), rateLimit, d.RetryAfter.Milliseconds())
}

// quoted writes a key as a JSON string, as the other clients' log lines do.
func quoted(key string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(key)
	return strings.TrimSuffix(b.String(), "\n")
}

var start = time.Now()

func monotonicMs() float64 { return float64(time.Since(start)) / float64(time.Millisecond) }
