package winlimit

import (
	"math/big"
	"math/bits"
	"sort"
)

// The module's decisions on state held in this process, one type per kind of key: the same
// rules as the Rust core (src/core/), checked against it by clients/spec/decisions.json.
// Each state answers decide(now, request, peek) with the five-integer reply and records an
// accepted write in place; expiresAt (ms) is when nothing in it counts any more (0: empty).

const never = -1

type reply = [5]int64

func mulDivFloor(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return 1<<63 - 1
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(min(q, 1<<63-1))
}

func remainingOf(limit, used int64) int64 { return max(0, min(limit-used, limit)) }

// whileBlocked is the reply while blocked until until: rejected, nothing left, the longer wait.
func whileBlocked(r reply, now, until int64) reply {
	left := until - now
	return reply{0, r[1], 0, max(r[3], left), max(r[4], left)}
}

// blockStarts is the end of the block a call's own rejection starts (0: none).
func blockStarts(r reply, peek bool, e extras, now int64) int64 {
	if !e.hasBlock || peek || r[0] == 1 || r[3] == never {
		return 0
	}
	return now + e.block
}

func inForce(until, now int64) int64 {
	if until > now {
		return until
	}
	return 0
}

type memPair struct {
	window, limit, remaining, wait, reset int64
}

// bind picks the pair the reply describes (pairs shortest first; ties to the longer window).
func bind(pairs []memPair, allowed bool) reply {
	var p memPair
	switch {
	case allowed:
		p = pairs[len(pairs)-1]
		for i := len(pairs) - 1; i >= 0; i-- {
			if pairs[i].remaining < p.remaining {
				p = pairs[i]
			}
		}
	default:
		found := false
		for _, q := range pairs {
			if q.wait == never {
				p, found = q, true
			}
		}
		if !found {
			p = pairs[len(pairs)-1]
			for i := len(pairs) - 1; i >= 0; i-- {
				if pairs[i].wait > p.wait {
					p = pairs[i]
				}
			}
		}
	}
	a := int64(0)
	if allowed {
		a = 1
	}
	return reply{a, p.limit, p.remaining, p.wait, p.reset}
}

func settle(pairs []memPair, recorded int64, newestEnd int64, hasNewest bool, now int64) {
	for i := range pairs {
		pairs[i].remaining -= recorded
		pairs[i].reset = 0
		if hasNewest {
			pairs[i].reset = max(0, newestEnd+pairs[i].window-now)
		}
	}
}

type memState interface {
	kind() string
	expiry() int64
}

// logState is the exact sliding log: one time per accepted unit, oldest first.
type logState struct {
	times        []int64
	expiresAt    int64
	blockedUntil int64
}

func (s *logState) kind() string  { return "log" }
func (s *logState) expiry() int64 { return s.expiresAt }

func upperBound(times []int64, t int64) int {
	return sort.Search(len(times), func(i int) bool { return times[i] > t })
}

func (s *logState) decide(now int64, r slideRequest, peek bool) reply {
	largest := r.windows[len(r.windows)-1].window
	s.times = s.times[upperBound(s.times, now-largest):]
	blocked := inForce(s.blockedUntil, now)
	if r.extras.hasRefund {
		if blocked == 0 && len(s.times) > 0 {
			s.times = s.times[:max(0, int64(len(s.times))-r.extras.refund)]
			if len(s.times) == 0 {
				s.expiresAt = now
			}
		}
		return s.decide(now, slideRequest{windows: r.windows, cost: 1, bucket: r.bucket}, true)
	}
	pairs := make([]memPair, len(r.windows))
	allowed := true
	for i, w := range r.windows {
		pairs[i] = s.pair(now, w.window, w.limit, r.cost)
		allowed = allowed && pairs[i].wait == 0
	}
	records := allowed && !peek
	newest, has := int64(0), len(s.times) > 0
	if has {
		newest = s.times[len(s.times)-1]
	}
	if records {
		newest, has = max(newest, now), true
	}
	recorded := int64(0)
	if records {
		recorded = r.cost
	}
	settle(pairs, recorded, newest, has, now)
	out := bind(pairs, allowed)
	if blocked != 0 {
		return whileBlocked(out, now, blocked)
	}
	if records {
		at := upperBound(s.times, now)
		grown := make([]int64, 0, int64(len(s.times))+r.cost)
		grown = append(append(grown, s.times[:at]...), make([]int64, r.cost)...)
		for i := at; i < at+int(r.cost); i++ {
			grown[i] = now
		}
		s.times = append(grown, s.times[at:]...)
		s.expiresAt = max(s.times[len(s.times)-1], now) + largest
	}
	if until := blockStarts(out, peek, r.extras, now); until != 0 {
		s.blockedUntil = until
		s.expiresAt = max(s.expiresAt, until)
		return whileBlocked(out, now, until)
	}
	return out
}

func (s *logState) pair(now, window, limit, cost int64) memPair {
	counted := int64(len(s.times) - upperBound(s.times, now-window))
	var wait int64
	switch {
	case cost > limit:
		wait = never
	case counted+cost <= limit:
		wait = 0
	default:
		// Room comes once the unit limit-cost places from the newest leaves.
		wait = max(1, s.times[int64(len(s.times))-(limit-cost)-1]+window-now)
	}
	return memPair{window: window, limit: limit, remaining: remainingOf(limit, counted), wait: wait}
}

// bucketsState is the bucketed log: units per bucket of bucket ms, by bucket start.
type bucketsState struct {
	bucket       int64
	units        map[int64]int64
	expiresAt    int64
	blockedUntil int64
}

func (s *bucketsState) kind() string  { return "buckets" }
func (s *bucketsState) expiry() int64 { return s.expiresAt }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func (s *bucketsState) firstCounted(now, window int64) int64 {
	b := s.bucket
	return ceilDiv(now-window-b+2, b) * b
}

func (s *bucketsState) starts() []int64 {
	out := make([]int64, 0, len(s.units))
	for k := range s.units {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (s *bucketsState) decide(now int64, r slideRequest, peek bool) (reply, error) {
	b := s.bucket
	if r.bucket != b {
		return reply{}, errf("BUCKET %d differs from the BUCKET %d this key was written with", r.bucket, b)
	}
	largest := r.windows[len(r.windows)-1].window
	first := s.firstCounted(now, largest)
	for start := range s.units {
		if start < first {
			delete(s.units, start)
		}
	}
	blocked := inForce(s.blockedUntil, now)
	if r.extras.hasRefund {
		if blocked == 0 {
			s.refund(now, r.extras.refund)
		}
		return s.decide(now, slideRequest{windows: r.windows, cost: 1, bucket: r.bucket}, true)
	}
	pairs := make([]memPair, len(r.windows))
	allowed := true
	for i, w := range r.windows {
		pairs[i] = s.pair(now, w.window, w.limit, r.cost)
		allowed = allowed && pairs[i].wait == 0
	}
	records := allowed && !peek
	starts := s.starts()
	newest, has := int64(0), len(starts) > 0
	if has {
		newest = starts[len(starts)-1]
	}
	if current := floorDiv(now, b) * b; records {
		newest, has = max(newest, current), true
		if len(starts) == 0 {
			newest = current
		}
	}
	recorded := int64(0)
	if records {
		recorded = r.cost
	}
	settle(pairs, recorded, newest+b-1, has, now)
	out := bind(pairs, allowed)
	if blocked != 0 {
		return whileBlocked(out, now, blocked), nil
	}
	if records && has {
		// Never into a bucket older than the newest (a clock that stepped back).
		s.units[newest] += r.cost
		s.expiresAt = newest + b - 1 + largest
	}
	if until := blockStarts(out, peek, r.extras, now); until != 0 {
		s.blockedUntil = until
		s.expiresAt = max(s.expiresAt, until)
		return whileBlocked(out, now, until), nil
	}
	return out, nil
}

func (s *bucketsState) refund(now, n int64) {
	starts := s.starts()
	for i := len(starts) - 1; i >= 0; i-- {
		start := starts[i]
		taken := min(n, s.units[start])
		s.units[start] -= taken
		n -= taken
		if s.units[start] == 0 {
			delete(s.units, start)
		}
	}
	if len(s.units) == 0 && s.expiresAt != 0 {
		s.expiresAt = now
	}
}

func (s *bucketsState) pair(now, window, limit, cost int64) memPair {
	first := s.firstCounted(now, window)
	counted := int64(0)
	var live []int64
	for _, start := range s.starts() {
		if start >= first {
			live = append(live, start)
			counted += s.units[start]
		}
	}
	var wait int64
	switch {
	case cost > limit:
		wait = never
	case counted+cost <= limit:
		wait = 0
	default:
		// Buckets leave oldest first: the one whose departure frees enough room.
		need, freed, freeing := counted+cost-limit, int64(0), first
		for _, start := range live {
			freeing = start
			freed += s.units[start]
			if freed >= need {
				break
			}
		}
		wait = max(1, freeing+s.bucket-1+window-now)
	}
	return memPair{window: window, limit: limit, remaining: remainingOf(limit, counted), wait: wait}
}

// counterState is the fixed window: a count and the window's end; above 10^12, a block.
type counterState struct {
	count     int64
	expiresAt int64
}

func (s *counterState) kind() string  { return "counter" }
func (s *counterState) expiry() int64 { return s.expiresAt }

func (s *counterState) decide(now int64, r fixedRequest, peek bool) reply {
	live := s.expiresAt != 0 && s.expiresAt > now
	if r.extras.hasRefund {
		if live && s.count > 0 && s.count <= memMax {
			s.count = max(s.count-r.extras.refund, 0)
		}
		return s.decide(now, fixedRequest{window: r.window, limit: r.limit, cost: 1, align: r.align}, true)
	}
	w, limit, cost := r.window, r.limit, r.cost
	end := now + w
	if live {
		end = s.expiresAt
	} else if r.align {
		end = (floorDiv(now, w) + 1) * w
	}
	count := int64(0)
	if live {
		count = s.count
	}
	allowed := cost <= limit && count+cost <= limit
	after := count
	if allowed && !peek {
		after = count + cost
	}
	left := end - now
	retry := int64(0)
	if !allowed {
		retry = left
		if cost > limit {
			retry = never
		}
	}
	reset := int64(0)
	if after > 0 {
		reset = left
	}
	a := int64(0)
	if allowed {
		a = 1
	}
	out := reply{a, limit, remainingOf(limit, after), retry, reset}
	if count > memMax {
		return whileBlocked(out, now, end)
	}
	if allowed && !peek {
		s.count, s.expiresAt = after, end
	}
	if until := blockStarts(out, peek, r.extras, now); until != 0 {
		// One expiry holds the block and the window: the later end.
		s.count, s.expiresAt = memMax+1, max(until, end)
		return whileBlocked(out, now, s.expiresAt)
	}
	return out
}

// tatState is GCRA: the theoretical arrival time, exactly ms + rem/den ms, written with
// den = limit; a TAT written with another limit is read rounded up. Units of 1/limit ms
// pass 2^63 (now * limit reaches 10^24), so they are big.Ints.
type tatState struct {
	ms, rem, den int64
	has          bool
	expiresAt    int64
	blockedUntil int64
}

func (s *tatState) kind() string  { return "tat" }
func (s *tatState) expiry() int64 { return s.expiresAt }

func bigMul(a, b int64) *big.Int { return new(big.Int).Mul(big.NewInt(a), big.NewInt(b)) }

// bigCeilDiv is x/d rounded up, as an int64 (the replies fit).
func bigCeilDiv(x *big.Int, d int64) int64 {
	q, m := new(big.Int).DivMod(x, big.NewInt(d), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

func (s *tatState) units(now, limit int64) *big.Int {
	nowU := bigMul(now, limit)
	if !s.has || s.expiresAt == 0 || s.expiresAt <= now {
		return nowU
	}
	stored := bigMul(s.ms, limit)
	if s.den == limit {
		stored.Add(stored, big.NewInt(s.rem))
	} else {
		stored.Add(stored, big.NewInt(bigCeilDiv(bigMul(s.rem, limit), s.den)))
	}
	if stored.Cmp(nowU) > 0 {
		return stored
	}
	return nowU
}

func (s *tatState) write(tatU *big.Int, limit, blockedUntil int64) {
	q, m := new(big.Int).DivMod(tatU, big.NewInt(limit), new(big.Int))
	s.ms, s.rem, s.den, s.has = q.Int64(), m.Int64(), limit, true
	s.expiresAt = s.ms
	if s.rem != 0 {
		s.expiresAt++
	}
	s.blockedUntil = blockedUntil
}

func (s *tatState) decide(now int64, r gcraRequest, peek bool) reply {
	lim, p := r.limit, r.period
	live := s.expiresAt != 0 && s.expiresAt > now
	blocked := int64(0)
	if live {
		blocked = inForce(s.blockedUntil, now)
	}
	tatU := s.units(now, lim)
	plain := gcraRequest{period: p, limit: lim, burst: r.burst, cost: r.cost}
	if r.extras.hasRefund {
		if blocked == 0 && tatU.Cmp(bigMul(now, lim)) > 0 {
			s.refund(now, r, tatU, r.extras.refund)
		}
		plain.cost = 1
		return s.decide(now, plain, true)
	}
	out, records := s.bucket(now, r, tatU, peek)
	if blocked != 0 {
		return whileBlocked(out, now, blocked)
	}
	if records {
		s.write(new(big.Int).Add(tatU, bigMul(r.cost, p)), lim, 0)
	}
	if until := blockStarts(out, peek, r.extras, now); until != 0 {
		pushed := new(big.Int).Add(bigMul(until, lim), bigMul(r.burst-1, p))
		if tatU.Cmp(pushed) > 0 {
			pushed = tatU
		}
		s.write(pushed, lim, until)
		return s.decide(now, plain, true)
	}
	return out
}

func (s *tatState) refund(now int64, r gcraRequest, tatU *big.Int, n int64) {
	nowU := bigMul(now, r.limit)
	after := new(big.Int).Sub(tatU, bigMul(n, r.period))
	if after.Cmp(nowU) <= 0 {
		s.has, s.expiresAt, s.blockedUntil = false, now, 0
		return
	}
	s.write(after, r.limit, 0)
}

func (s *tatState) bucket(now int64, r gcraRequest, tatU *big.Int, peek bool) (reply, bool) {
	lim, p, burst := r.limit, r.period, r.burst
	capacity := bigMul(burst, p)
	debt := new(big.Int).Sub(tatU, bigMul(now, lim))
	whole := func(debt *big.Int) int64 {
		room := new(big.Int).Sub(capacity, debt)
		if room.Sign() < 0 {
			room.SetInt64(0)
		}
		return min(new(big.Int).Quo(room, big.NewInt(p)).Int64(), burst)
	}
	if r.cost > burst {
		return reply{0, burst, whole(debt), never, bigCeilDiv(debt, lim)}, false
	}
	cost := bigMul(r.cost, p)
	withCost := new(big.Int).Add(debt, cost)
	allowed := withCost.Cmp(capacity) <= 0
	records := allowed && !peek
	after := debt
	if records {
		after = withCost
	}
	retry := int64(0)
	if !allowed {
		retry = bigCeilDiv(new(big.Int).Sub(withCost, capacity), lim)
	}
	a := int64(0)
	if allowed {
		a = 1
	}
	return reply{a, burst, whole(after), retry, bigCeilDiv(after, lim)}, records
}
