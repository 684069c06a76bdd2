package winlimit

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// DefaultName names the policies of a limiter made without WithName.
const DefaultName = "winlimit"

// Window is one (length, limit) pair of a sliding window: at most Limit units in any
// Length. Length is whole milliseconds.
type Window struct {
	Length time.Duration
	Limit  int64
}

// Policy is one quota policy as RateLimit-Policy announces it: Quota units per Window. For
// GCRA it is the bucket: Quota its capacity and Window its time to refill from empty.
type Policy struct {
	Name   string
	Quota  int64
	Window time.Duration
}

// call is one command line to send and the policies its reply describes.
type call struct {
	args     []any
	policies []Policy
	peek     bool
	refund   bool
}

func (c *call) key() string { return c.args[1].(string) }

// line is the command line as text, the rejection cache's key.
func (c *call) line() string {
	var b strings.Builder
	for i, a := range c.args {
		if i > 0 {
			b.WriteByte(0)
		}
		switch v := a.(type) {
		case string:
			b.WriteString(v)
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		}
	}
	return b.String()
}

type optionKind uint8

const (
	optCost optionKind = iota + 1
	optRefund
	optBlock
	optBucket
	optAlign
	optBurst
	optPeek
	optName
)

// CallOption is one setting of one call (Cost, Refund, Block, Bucket, Align, Burst, Peek,
// Name): a plain value, so a call allocates nothing for its options.
type CallOption struct {
	kind optionKind
	n    int64
	d    time.Duration
	s    string
}

// Cost charges n units instead of 1.
func Cost(n int64) CallOption { return CallOption{kind: optCost, n: n} }

// Refund gives n units back instead of charging (never with Cost or Block).
func Refund(n int64) CallOption { return CallOption{kind: optRefund, n: n} }

// Block makes a rejection keep the key refused for d from now (whole ms).
func Block(d time.Duration) CallOption { return CallOption{kind: optBlock, d: d} }

// Bucket counts a sliding window in buckets of d (whole ms): Slide only.
func Bucket(d time.Duration) CallOption { return CallOption{kind: optBucket, d: d} }

// Align starts fixed windows on multiples of the window: Fixed only.
func Align() CallOption { return CallOption{kind: optAlign} }

// Burst sets the bucket's capacity: GCRA only.
func Burst(n int64) CallOption { return CallOption{kind: optBurst, n: n} }

// Peek asks without recording (the _RO command).
func Peek() CallOption { return CallOption{kind: optPeek} }

// Name names the call's policies instead of the limiter's name.
func Name(name string) CallOption { return CallOption{kind: optName, s: name} }

var optionNames = [...]string{"", "cost", "refund", "block", "bucket", "align", "burst", "peek", "name"}

type callOptions struct {
	cost, refund, burst int64
	block, bucket       time.Duration
	hasRefund, hasBlock bool
	hasBucket, hasBurst bool
	align, peek         bool
	name                string
}

// collect reads opts for method, which takes the kinds in allowed.
func collect(method string, name string, defaultBlock *time.Duration, opts []CallOption, allowed ...optionKind) (callOptions, error) {
	o := callOptions{cost: 1, name: name}
	for _, opt := range opts {
		if !takes(allowed, opt.kind) {
			return o, argError(optionNames[opt.kind], "%s takes no %s option", method, optionNames[opt.kind])
		}
		switch opt.kind {
		case optCost:
			o.cost = opt.n
		case optRefund:
			o.refund, o.hasRefund = opt.n, true
		case optBlock:
			o.block, o.hasBlock = opt.d, true
		case optBucket:
			o.bucket, o.hasBucket = opt.d, true
		case optAlign:
			o.align = true
		case optBurst:
			o.burst, o.hasBurst = opt.n, true
		case optPeek:
			o.peek = true
		case optName:
			o.name = opt.s
		}
	}
	// The limiter's block is every recording call's, never a peek's or a refund's (refused there).
	if !o.hasBlock && !o.peek && !o.hasRefund && defaultBlock != nil {
		o.block, o.hasBlock = *defaultBlock, true
	}
	return o, checkName(o.name)
}

func takes(allowed []optionKind, kind optionKind) bool {
	for _, k := range allowed {
		if k == kind {
			return true
		}
	}
	return false
}

// checkName refuses a policy name the header fields cannot carry (printable ASCII only).
func checkName(name string) error {
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] > 0x7e {
			return argError("name", "a policy name must be printable ASCII, not %q", name)
		}
	}
	return nil
}

// ms gives d in whole milliseconds, or an error naming what for a fraction of one.
func ms(what string, d time.Duration) (int64, error) {
	if d%time.Millisecond != 0 {
		return 0, argError(what, "%v is not a whole number of milliseconds", d)
	}
	return int64(d / time.Millisecond), nil
}

// oneWindowCall is the storage of a single-policy call's line and policy, allocated as one:
// both live as long as the call's Decision, and one allocation instead of two is a measurable
// share of the limiter's own work per call (bench/results/go-overhead.md).
type oneWindowCall struct {
	args   [12]any
	policy [1]Policy
}

// newOneWindowCall returns an empty line with room for every option, and the policy's slot.
func newOneWindowCall() ([]any, []Policy) {
	s := new(oneWindowCall)
	return s.args[:0], s.policy[:]
}

// tail appends [COST n | REFUND n] [BLOCK ms]; the server refuses REFUND with COST or BLOCK
// in its own words.
func (o *callOptions) tail(args []any) ([]any, error) {
	if o.cost != 1 {
		args = append(args, "COST", o.cost)
	}
	if o.hasRefund {
		args = append(args, "REFUND", o.refund)
	}
	if o.hasBlock {
		b, err := ms("block", o.block)
		if err != nil {
			return nil, err
		}
		args = append(args, "BLOCK", b)
	}
	return args, nil
}

// windowLabel names a window in a policy of several: whole seconds as "60s", else "1500ms".
func windowLabel(window time.Duration) string {
	m := int64(window / time.Millisecond)
	if m%1000 == 0 {
		return strconv.FormatInt(m/1000, 10) + "s"
	}
	return strconv.FormatInt(m, 10) + "ms"
}

// mulCeilDiv is a*b/c rounded up (c > 0), exact where a*b is past int64 (BURST * period_ms
// reaches 10^24), saturated where the result is.
func mulCeilDiv(a, b, c int64) int64 {
	if a < 0 || b < 0 {
		return ceilDiv(a*b, c) // refused by the server: the policy is never read
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, uint64(c))
	if r != 0 {
		q++
	}
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// ceilDiv is a/b rounded towards +infinity (b > 0), as Python's -(-a // b).
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}
