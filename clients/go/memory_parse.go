package winlimit

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// The module's bounds (src/core/parse.rs): window_ms, period_ms, the large limits, BURST.
const (
	memMax                 = int64(1_000_000_000_000)
	memMaxWindows          = 8
	memMaxBucketsPerWindow = 1000
	// DefaultMaxLimit is winlimit.max-limit's default: the exact log's largest limit.
	DefaultMaxLimit = 10_000
)

// memError is an error reply as the module words it.
type memError string

func (e memError) Error() string { return "ERR " + string(e) }
func (memError) RedisError()     {}

func errf(format string, args ...any) error { return memError(fmt.Sprintf(format, args...)) }

var integerWord = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// parseInt reads an integer as Redis writes it (no +, no leading zeros, no -0), within i64.
func parseInt(word string) (int64, bool) {
	if !integerWord.MatchString(word) || word == "-0" {
		return 0, false
	}
	n, err := strconv.ParseInt(word, 10, 64)
	return n, err == nil
}

func looksLikeInteger(word string) bool {
	digits := strings.TrimPrefix(word, "-")
	if digits == "" {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func ranged(word, name string, low, high int64) (int64, error) {
	n, ok := parseInt(word)
	if !ok || n < low || n > high {
		return 0, errf("%s must be an integer between %d and %d", name, low, high)
	}
	return n, nil
}

func parseCost(word string) (int64, error) {
	n, ok := parseInt(word)
	if !ok || n < 1 {
		return 0, errf("COST must be a positive integer")
	}
	return n, nil
}

type extras struct {
	refund, block       int64
	hasRefund, hasBlock bool
}

// wordOptions reads keyword options: any case, any order, each at most once.
type wordOptions struct {
	words []string
	seen  []string
	extras
}

// extra takes word (and its value) when it is REFUND or BLOCK.
func (o *wordOptions) extra(word string) (bool, error) {
	switch strings.ToUpper(word) {
	case "REFUND":
		v, err := o.value("REFUND")
		if err != nil {
			return true, err
		}
		n, ok := parseInt(v)
		if !ok || n < 1 {
			return true, errf("REFUND must be a positive integer")
		}
		o.refund, o.hasRefund = n, true
	case "BLOCK":
		v, err := o.value("BLOCK")
		if err != nil {
			return true, err
		}
		if o.block, err = ranged(v, "BLOCK", 1, memMax); err != nil {
			return true, err
		}
		o.hasBlock = true
	default:
		return false, nil
	}
	return true, nil
}

func (o *wordOptions) checked() (extras, error) {
	if o.hasRefund && o.was("COST") {
		return o.extras, errf("REFUND cannot be combined with COST")
	}
	if o.hasRefund && o.hasBlock {
		return o.extras, errf("REFUND cannot be combined with BLOCK")
	}
	return o.extras, nil
}

func (o *wordOptions) next() (string, bool) {
	if len(o.words) == 0 {
		return "", false
	}
	w := o.words[0]
	o.words = o.words[1:]
	return w, true
}

func (o *wordOptions) was(name string) bool {
	for _, s := range o.seen {
		if s == name {
			return true
		}
	}
	return false
}

func (o *wordOptions) once(name string) error {
	if o.was(name) {
		return errf("option '%s' given more than once", name)
	}
	o.seen = append(o.seen, name)
	return nil
}

func (o *wordOptions) value(name string) (string, error) {
	if err := o.once(name); err != nil {
		return "", err
	}
	w, ok := o.next()
	if !ok {
		return "", errf("%s needs a value", name)
	}
	return w, nil
}

// printable is an argument fit to echo: control characters replaced, at most 64 shown.
func printable(word string) string {
	runes := []rune(word)
	shown := runes
	if len(runes) > 64 {
		shown = runes[:64]
	}
	var b strings.Builder
	for _, r := range shown {
		if unicode.IsControl(r) {
			r = '?'
		}
		b.WriteRune(r)
	}
	if len(runes) > 64 {
		b.WriteString("...")
	}
	return b.String()
}

func unknownOption(word string) error { return errf("unknown option '%s'", printable(word)) }

func unexpected(word string) error {
	if looksLikeInteger(word) {
		return errf("'%s' where an option was expected: window_ms limit pairs come before the options", printable(word))
	}
	return unknownOption(word)
}

type wordPair struct {
	window int64
	limit  string
}

type memWindow struct{ window, limit int64 }

// parseWindows reads the window_ms limit pairs at the front, shortest first, and the rest.
func parseWindows(args []string, boundFor func(rest []string) int64) ([]memWindow, []string, error) {
	if len(args) < 2 {
		return nil, nil, errf("window_ms must be an integer between 1 and %d", memMax)
	}
	first, err := ranged(args[0], "window_ms", 1, memMax)
	if err != nil {
		return nil, nil, err
	}
	raw := []wordPair{{first, args[1]}}
	rest := args[2:]
	for len(rest) > 0 {
		if len(raw) > memMaxWindows {
			return nil, nil, errf("at most %d window_ms limit pairs are allowed", memMaxWindows)
		}
		if !looksLikeInteger(rest[0]) {
			break
		}
		window, err := ranged(rest[0], "window_ms", 1, memMax)
		if err != nil {
			return nil, nil, err
		}
		if len(rest) < 2 || !looksLikeInteger(rest[1]) {
			return nil, nil, errf("window_ms %d has no limit after it", window)
		}
		raw = append(raw, wordPair{window, rest[1]})
		rest = rest[2:]
	}
	if len(raw) > memMaxWindows {
		return nil, nil, errf("at most %d window_ms limit pairs are allowed", memMaxWindows)
	}
	bound := boundFor(rest)
	pairs := []memWindow{}
	for _, p := range raw {
		limit, err := ranged(p.limit, "limit", 0, bound)
		if err != nil {
			return nil, nil, err
		}
		for _, q := range pairs {
			if q.window == p.window {
				return nil, nil, errf("window_ms %d given more than once", p.window)
			}
		}
		pairs = append(pairs, memWindow{p.window, limit})
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].window != pairs[j].window {
			return pairs[i].window < pairs[j].window
		}
		return pairs[i].limit < pairs[j].limit
	})
	return pairs, rest, nil
}

type slideRequest struct {
	windows []memWindow
	cost    int64
	bucket  int64 // 0: none
	extras  extras
}

func parseSlide(args []string, maxLimit int64) (slideRequest, error) {
	bound := func(rest []string) int64 {
		for _, o := range rest {
			if strings.ToUpper(o) == "BUCKET" {
				return memMax
			}
		}
		return maxLimit
	}
	pairs, rest, err := parseWindows(args, bound)
	if err != nil {
		return slideRequest{}, err
	}
	r := slideRequest{windows: pairs, cost: 1}
	o := &wordOptions{words: rest}
	for word, ok := o.next(); ok; word, ok = o.next() {
		var v string
		switch upper := strings.ToUpper(word); {
		case upper == "COST":
			if v, err = o.value("COST"); err == nil {
				r.cost, err = parseCost(v)
			}
		case upper == "BUCKET":
			if v, err = o.value("BUCKET"); err == nil {
				r.bucket, err = parseBucket(v, pairs)
			}
		default:
			var took bool
			if took, err = o.extra(word); !took {
				err = unexpected(word)
			}
		}
		if err != nil {
			return r, err
		}
	}
	r.extras, err = o.checked()
	return r, err
}

func parseBucket(word string, pairs []memWindow) (int64, error) {
	smallest, largest := pairs[0].window, pairs[len(pairs)-1].window
	if n, ok := parseInt(word); ok && n >= 1 && n <= smallest && (largest+n-1)/n <= memMaxBucketsPerWindow {
		return n, nil
	}
	least := (largest + memMaxBucketsPerWindow - 1) / memMaxBucketsPerWindow
	if least > smallest {
		return 0, errf("BUCKET cannot serve these windows: the largest needs buckets of at least %d ms, the smallest allows at most %d ms", least, smallest)
	}
	return 0, errf("BUCKET must be an integer between %d and %d", least, smallest)
}

type fixedRequest struct {
	window, limit, cost int64
	align               bool
	extras              extras
}

func parseFixed(args []string) (fixedRequest, error) {
	pairs, rest, err := parseWindows(args, func([]string) int64 { return memMax })
	if err != nil {
		return fixedRequest{}, err
	}
	if len(pairs) > 1 {
		return fixedRequest{}, errf("WINLIMIT.FIXED takes one window_ms limit pair")
	}
	r := fixedRequest{window: pairs[0].window, limit: pairs[0].limit, cost: 1}
	o := &wordOptions{words: rest}
	for word, ok := o.next(); ok; word, ok = o.next() {
		var v string
		switch upper := strings.ToUpper(word); {
		case upper == "COST":
			if v, err = o.value("COST"); err == nil {
				r.cost, err = parseCost(v)
			}
		case upper == "ALIGN":
			err = o.once("ALIGN")
			r.align = true
		default:
			var took bool
			if took, err = o.extra(word); !took {
				err = unexpected(word)
			}
		}
		if err != nil {
			return r, err
		}
	}
	r.extras, err = o.checked()
	return r, err
}

type gcraRequest struct {
	period, limit, burst, cost int64
	extras                     extras
}

func parseGCRA(args []string) (gcraRequest, error) {
	if len(args) < 2 {
		return gcraRequest{}, errf("period_ms must be an integer between 1 and %d", memMax)
	}
	period, err := ranged(args[0], "period_ms", 1, memMax)
	if err != nil {
		return gcraRequest{}, err
	}
	limit, err := ranged(args[1], "limit", 1, memMax)
	if err != nil {
		return gcraRequest{}, err
	}
	r := gcraRequest{period: period, limit: limit, cost: 1}
	burstWord, hasBurst := "", false
	o := &wordOptions{words: args[2:]}
	for word, ok := o.next(); ok; word, ok = o.next() {
		var v string
		switch upper := strings.ToUpper(word); {
		case upper == "BURST":
			burstWord, err = o.value("BURST")
			hasBurst = true
		case upper == "COST":
			if v, err = o.value("COST"); err == nil {
				r.cost, err = parseCost(v)
			}
		default:
			var took bool
			if took, err = o.extra(word); !took {
				err = unknownOption(word)
			}
		}
		if err != nil {
			return r, err
		}
	}
	if r.extras, err = o.checked(); err != nil {
		return r, err
	}
	// A full refill (burst * period_ms / limit) must fit in 10^12 ms: MAX*limit fits in i64
	// only up to limit 9.2*10^6, so the bound is computed without the product.
	maxBurst := memMax
	if q := mulDivFloor(memMax, limit, period); q < maxBurst {
		maxBurst = q
	}
	if !hasBurst {
		r.burst = min(limit, maxBurst)
		return r, nil
	}
	r.burst, err = ranged(burstWord, "BURST", 1, maxBurst)
	return r, err
}

// checkMode refuses REFUND and BLOCK on the _RO commands, which write nothing.
func checkMode(e extras, peek bool) error {
	if e.hasRefund && peek {
		return errf("REFUND is an option of the recording commands, not of _RO")
	}
	if e.hasBlock && peek {
		return errf("BLOCK is an option of the recording commands, not of _RO")
	}
	return nil
}
