package winlimit

import (
	"container/list"
	"math"
	"sync"
	"time"
)

// DefaultCacheSize is the rejection cache size the other clients default to.
const DefaultCacheSize = 10000

var processStart = time.Now()

// monotonicMs is this process's monotonic clock in ms.
func monotonicMs() float64 {
	return float64(time.Since(processStart)) / float64(time.Millisecond)
}

type cacheEntry struct {
	line    string
	key     string
	five    [5]int64
	backend string
	arrived float64
}

// rejectionCache keeps rejections by command line until their retry_after_ms ends, at most
// size of them, oldest first (the shared rules: clients/spec/cache.json). A rejected call
// records nothing, and only deleting the key can make the same request acceptable before
// then, so the same line is answered from memory without a round trip.
type rejectionCache struct {
	mu             sync.Mutex
	size           int
	clock          func() float64
	order          *list.List // of *cacheEntry, oldest first
	byLine         map[string]*list.Element
	keptSinceSweep int
}

func newRejectionCache(size int, clock func() float64) *rejectionCache {
	return &rejectionCache{size: size, clock: clock, order: list.New(), byLine: map[string]*list.Element{}}
}

// lookup gives the cached answer for a recording call (never a peek's or a refund's), aged by
// the whole ms since it arrived; false when there is none or it has ended (then dropped).
func (rc *rejectionCache) lookup(c *call) ([5]int64, bool) {
	if c.peek || c.refund {
		return [5]int64{}, false
	}
	return rc.get(c.line())
}

func (rc *rejectionCache) get(line string) ([5]int64, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	el, ok := rc.byLine[line]
	if !ok {
		return [5]int64{}, false
	}
	e := el.Value.(*cacheEntry)
	elapsed := rc.clock() - e.arrived
	if elapsed >= float64(e.five[3]) {
		rc.remove(el)
		return [5]int64{}, false
	}
	whole := int64(math.Floor(elapsed))
	out := e.five
	out[3] = max(out[3]-whole, 1)
	out[4] = max(out[4]-whole, 0)
	return out, true
}

func (rc *rejectionCache) backendOf(c *call) string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if el, ok := rc.byLine[c.line()]; ok {
		return el.Value.(*cacheEntry).backend
	}
	return ""
}

// remember keeps a recording call's rejection; a refund gave units back, so its key's
// rejections are forgotten instead.
func (rc *rejectionCache) remember(c *call, five [5]int64, backend string) {
	switch {
	case c.peek:
	case c.refund:
		rc.forget(c.key())
	default:
		rc.put(c.line(), c.key(), five, backend)
	}
}

// put keeps a rejection a retry can end (retry_after_ms > 0) as the newest.
func (rc *rejectionCache) put(line, key string, five [5]int64, backend string) {
	if five[0] == 1 || five[3] <= 0 {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	now := rc.clock()
	if el, ok := rc.byLine[line]; ok {
		rc.remove(el)
	}
	rc.keptSinceSweep++
	// A sweep reads every entry: at most once per size kept, so O(1) per put.
	if rc.order.Len() >= rc.size && rc.keptSinceSweep >= rc.size {
		rc.dropEnded(now)
		rc.keptSinceSweep = 0
	}
	for rc.order.Len() >= rc.size {
		rc.remove(rc.order.Front())
	}
	rc.byLine[line] = rc.order.PushBack(&cacheEntry{line: line, key: key, five: five, backend: backend, arrived: now})
}

// forget drops every entry of a command line on key.
func (rc *rejectionCache) forget(key string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for el := rc.order.Front(); el != nil; {
		next := el.Next()
		if el.Value.(*cacheEntry).key == key {
			rc.remove(el)
		}
		el = next
	}
}

func (rc *rejectionCache) held() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.order.Len()
}

func (rc *rejectionCache) dropEnded(now float64) {
	for el := rc.order.Front(); el != nil; {
		next := el.Next()
		e := el.Value.(*cacheEntry)
		if now-e.arrived >= float64(e.five[3]) {
			rc.remove(el)
		}
		el = next
	}
}

func (rc *rejectionCache) remove(el *list.Element) {
	delete(rc.byLine, el.Value.(*cacheEntry).line)
	rc.order.Remove(el)
}
