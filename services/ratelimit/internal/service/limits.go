package service

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	winlimit "github.com/winlimit/winlimit/clients/go"

	"github.com/winlimit/winlimit/services/ratelimit/internal/config"
)

// counterKey is the Redis key of a descriptor's counter: upstream's
// "<prefix><domain>_<key>_<value>_" without the window's start (a winlimit key keeps its
// window inside), then the algorithm and window lengths, so a changed rule starts afresh
// instead of reading another algorithm's state.
func counterKey(prefix, domain string, entries []*rlv3.RateLimitDescriptor_Entry, values []string, rule *config.Rule) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString(domain)
	b.WriteByte('_')
	for i, e := range entries {
		b.WriteString(e.GetKey())
		b.WriteByte('_')
		b.WriteString(values[i])
		b.WriteByte('_')
	}
	b.WriteString(string(rule.Limits[0].Algorithm))
	for i, l := range rule.Limits {
		b.WriteByte(",:"[min(i, 1)^1])
		b.WriteString(strconv.FormatInt(l.Window.Milliseconds(), 10))
	}
	return b.String()
}

// decide sends one winlimit call for a rule's limits: FIXED aligned to the window from the
// Unix epoch (upstream's windows), SLIDE with every window in one call, or GCRA.
func decide(ctx context.Context, l winlimit.Deciding, key string, rule *config.Rule, opts ...winlimit.CallOption) (winlimit.Decision, error) {
	first := rule.Limits[0]
	if rule.Block > 0 {
		opts = append(opts, winlimit.Block(rule.Block))
	}
	switch first.Algorithm {
	case config.Slide:
		windows := make([]winlimit.Window, len(rule.Limits))
		for i, lim := range rule.Limits {
			windows[i] = winlimit.Window{Length: lim.Window, Limit: int64(lim.Requests)}
		}
		return l.Slide(ctx, key, windows, opts...)
	case config.GCRA:
		if first.Burst > 0 {
			opts = append(opts, winlimit.Burst(first.Burst))
		}
		return l.GCRA(ctx, key, first.Window, int64(first.Requests), opts...)
	}
	return l.Fixed(ctx, key, first.Window, int64(first.Requests), append(opts, winlimit.Align())...)
}

// refundOptions drops Block: the server refuses it with REFUND.
func refund(ctx context.Context, l winlimit.Deciding, key string, rule *config.Rule, units int64) (winlimit.Decision, error) {
	r := *rule
	r.Block = 0
	return decide(ctx, l, key, &r, winlimit.Refund(units))
}

// binding is the limit a decision's reply describes: the one with its quota, of several the
// longest window (the client's Policy rule).
func binding(rule *config.Rule, d winlimit.Decision) config.Limit {
	best := rule.Limits[0]
	found := false
	for _, l := range rule.Limits {
		if int64(l.Requests) == d.Limit && (!found || l.Window > best.Window) {
			best, found = l, true
		}
	}
	return best
}

// protoLimit is the descriptor status's current_limit: the unit the rule was written in
// (UNKNOWN for a window that is no whole unit), and the rule's name.
func protoLimit(l config.Limit, name string) *pb.RateLimitResponse_RateLimit {
	return &pb.RateLimitResponse_RateLimit{Name: name, RequestsPerUnit: l.Requests, Unit: l.Unit}
}

// wholeSeconds rounds up: upstream's duration_until_reset is whole seconds, the window's
// length less the seconds gone by, which is the reset rounded up.
func wholeSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

func clampUint32(n int64) uint32 {
	if n < 0 {
		return 0
	}
	if n > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(n)
}

// overrideRule is Envoy's per-descriptor limit: a fixed window of the unit, never shadowed,
// counted by the request's own key.
func overrideRule(domain string, d *rlv3.RateLimitDescriptor) *config.Rule {
	o := d.GetLimit()
	unit := pb.RateLimitResponse_RateLimit_Unit(o.GetUnit())
	secs, ok := config.UnitSeconds[unit]
	if !ok {
		return nil
	}
	return &config.Rule{
		Limits:  []config.Limit{{Requests: o.GetRequestsPerUnit(), Unit: unit, Window: time.Duration(secs) * time.Second, Algorithm: config.Fixed}},
		StatKey: overrideStatKey(domain, d),
	}
}

// overrideStatKey names an override's metrics by its keys only: upstream puts the request's
// values there, one series per value.
func overrideStatKey(domain string, d *rlv3.RateLimitDescriptor) string {
	var b strings.Builder
	b.WriteString(domain)
	for _, e := range d.GetEntries() {
		b.WriteString("." + e.GetKey())
	}
	return b.String()
}
