package winlimit

import (
	"container/list"
	"context"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultMaxKeys bounds the keys a MemoryLimiter holds.
const DefaultMaxKeys = 100_000

// MemoryLimiter makes the module's decisions in this process's memory, with no Redis: the
// fallback of a Limiter or a middleware while Redis fails. It counts per process (N
// processes each allow the whole limit). Its decisions are the module's for the same calls
// at the same times (clients/spec/decisions.json, generated from the module's core, is run
// on it); Decision.Backend is "memory". A key is dropped once nothing in it counts, and at
// most maxKeys keys are held, the least recently used dropped first. Safe for concurrent use.
type MemoryLimiter struct {
	opts     options
	maxKeys  int
	maxLimit int64
	clock    func() int64

	mu              sync.Mutex
	keys            map[string]*list.Element // of *memEntry
	lru             *list.List               // least recently used first
	callsSinceSweep int
}

type memEntry struct {
	key   string
	state memState
}

// MemoryOption configures a MemoryLimiter.
type MemoryOption func(*MemoryLimiter)

// WithMaxKeys bounds the keys held (DefaultMaxKeys).
func WithMaxKeys(n int) MemoryOption {
	return func(m *MemoryLimiter) {
		m.maxKeys = n
		if n < 1 && m.opts.err == nil {
			m.opts.err = argError("max keys", "must be at least 1, not %d", n)
		}
	}
}

// WithClock sets the clock, in ms since the epoch (tests pass their own).
func WithClock(clock func() int64) MemoryOption { return func(m *MemoryLimiter) { m.clock = clock } }

// WithMemoryOptions applies a Limiter's options that a MemoryLimiter shares: WithName and
// WithBlock.
func WithMemoryOptions(opts ...Option) MemoryOption {
	return func(m *MemoryLimiter) {
		o, err := evaluate(opts)
		m.opts.name, m.opts.block = o.name, o.block
		if err != nil && m.opts.err == nil {
			m.opts.err = err
		}
	}
}

// NewMemory gives an empty in-process limiter on the wall clock (ALIGN and buckets start
// on its multiples, as the module's do).
func NewMemory(opts ...MemoryOption) *MemoryLimiter {
	m := &MemoryLimiter{
		opts: options{name: DefaultName}, maxKeys: DefaultMaxKeys, maxLimit: DefaultMaxLimit,
		clock: func() int64 { return time.Now().UnixMilli() },
		keys:  map[string]*list.Element{}, lru: list.New(),
	}
	for _, opt := range opts {
		opt(m)
	}
	return m
}

// Reset forgets the key; true if it was held.
func (m *MemoryLimiter) Reset(_ context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.keys[key]
	if ok {
		m.lru.Remove(el)
		delete(m.keys, key)
	}
	return ok, m.opts.err
}

func (m *MemoryLimiter) collect(method string, opts []CallOption, allowed ...optionKind) (callOptions, error) {
	if m.opts.err != nil {
		return callOptions{}, m.opts.err
	}
	return collect(method, m.opts.name, m.opts.block, opts, allowed...)
}

func (m *MemoryLimiter) decide(c *call) (Decision, error) {
	words := make([]string, len(c.args)-2)
	for i, a := range c.args[2:] {
		switch v := a.(type) {
		case string:
			words[i] = v
		case int64:
			words[i] = strconv.FormatInt(v, 10)
		}
	}
	five, err := m.execute(c.args[0].(string), c.key(), words)
	if err != nil {
		return Decision{}, err
	}
	return fromFive(five, c.policies, "memory"), nil
}

// execute answers one WINLIMIT command line at the clock's time, as the module would: the
// five integers, or the module's error.
func (m *MemoryLimiter) execute(command, key string, words []string) (reply, error) {
	command = strings.ToUpper(command)
	base, peek := strings.CutSuffix(command, "_RO")
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock()
	state, err := m.state(key, now, base, words)
	if err != nil {
		return reply{}, err
	}
	out, err := m.decideOn(commandSpecs[base], state, now, words, peek)
	if err != nil {
		return out, err
	}
	if _, held := m.keys[key]; !held && state.expiry() != 0 {
		m.keys[key] = m.lru.PushBack(&memEntry{key: key, state: state})
	}
	m.bound(now)
	return out, nil
}

func (m *MemoryLimiter) decideOn(spec *commandSpec, state memState, now int64, words []string, peek bool) (reply, error) {
	switch s := state.(type) {
	case *logState, *bucketsState:
		r, err := parseSlide(words, m.maxLimit)
		if err == nil {
			err = spec.refuseForeignShape(words)
		}
		if err == nil {
			err = checkMode(r.extras, peek)
		}
		if err != nil {
			return reply{}, err
		}
		if l, ok := s.(*logState); ok {
			return l.decide(now, r, peek), nil
		}
		return s.(*bucketsState).decide(now, r, peek)
	case *counterState:
		r, err := parseFixed(words)
		if err == nil {
			err = spec.refuseForeignShape(words)
		}
		if err == nil {
			err = checkMode(r.extras, peek)
		}
		if err != nil {
			return reply{}, err
		}
		return s.decide(now, r, peek), nil
	case *tatState:
		r, err := parseGCRA(words)
		if err == nil {
			err = spec.refuseForeignShape(words)
		}
		if err == nil {
			err = checkMode(r.extras, peek)
		}
		if err != nil {
			return reply{}, err
		}
		return s.decide(now, r, peek), nil
	}
	return reply{}, errf("no state")
}

// state is the key's live state (refreshed as the most recently used), or a new empty one
// of the command's kind, kept only once it records something.
func (m *MemoryLimiter) state(key string, now int64, base string, words []string) (memState, error) {
	var held memState
	if el, ok := m.keys[key]; ok {
		held = el.Value.(*memEntry).state
		if held.expiry() != 0 && held.expiry() <= now {
			m.lru.Remove(el)
			delete(m.keys, key)
			held = nil
		} else {
			m.lru.MoveToBack(el)
		}
	}
	fresh, err := newMemState(base, words)
	if err != nil || held == nil {
		return fresh, err
	}
	if held.kind() != fresh.kind() {
		return nil, memWrongType{}
	}
	return held, nil
}

type memWrongType struct{}

func (memWrongType) Error() string {
	return "WRONGTYPE Operation against a key holding the wrong kind of value"
}
func (memWrongType) RedisError() {}

func newMemState(base string, words []string) (memState, error) {
	spec, ok := commandSpecs[base]
	if !ok {
		return nil, errf("unknown command '%s' for winlimit memory", base)
	}
	switch spec.state {
	case stateLog:
		if b, ok := bucketOption(words); ok {
			return &bucketsState{bucket: b, units: map[int64]int64{}}, nil
		}
		return &logState{}, nil
	case stateCounter:
		return &counterState{}, nil
	}
	return &tatState{}, nil
}

// bucketOption is the BUCKET a log command's words give, when they give a valid integer:
// the state is then a ring of buckets (the parser refuses a bad one in its own words).
func bucketOption(words []string) (int64, bool) {
	for i := 0; i+1 < len(words); i++ {
		if strings.ToUpper(words[i]) == "BUCKET" {
			return parseInt(words[i+1])
		}
	}
	return 0, false
}

// bound keeps at most maxKeys keys, least recently used out first; and once per as many
// calls as keys held, sweeps out every key whose windows have passed (one step per call).
func (m *MemoryLimiter) bound(now int64) {
	for m.lru.Len() > m.maxKeys {
		front := m.lru.Front()
		delete(m.keys, front.Value.(*memEntry).key)
		m.lru.Remove(front)
	}
	m.callsSinceSweep++
	if m.callsSinceSweep < m.lru.Len() {
		return
	}
	m.callsSinceSweep = 0
	for el := m.lru.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*memEntry); e.state.expiry() != 0 && e.state.expiry() <= now {
			delete(m.keys, e.key)
			m.lru.Remove(el)
		}
		el = next
	}
}
