package config

import (
	"fmt"
	"strings"
	"time"

	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

// Algorithm is how a rule counts: upstream's fixed windows by default.
type Algorithm string

const (
	Fixed Algorithm = "fixed"
	Slide Algorithm = "slide"
	GCRA  Algorithm = "gcra"
)

// Limit is one limit of a rule: Requests per Window, counted by Algorithm.
type Limit struct {
	Requests  uint32
	Unit      pb.RateLimitResponse_RateLimit_Unit
	Window    time.Duration
	Algorithm Algorithm
	Burst     int64
}

// Rule is what a descriptor's rate_limit (or rate_limits) says.
type Rule struct {
	Limits     []Limit // one, or several decided in one call (slide only)
	Unlimited  bool
	Name       string
	Replaces   []string
	ShadowMode bool
	Block      time.Duration
	// StatKey is the rule's metric key, upstream's "domain.key_value.key".
	StatKey        string
	DetailedMetric bool
}

// UnitSeconds are upstream's unit lengths: a month is 30 days and a year 365, counted
// from the Unix epoch.
var UnitSeconds = map[pb.RateLimitResponse_RateLimit_Unit]int64{
	pb.RateLimitResponse_RateLimit_SECOND: 1,
	pb.RateLimitResponse_RateLimit_MINUTE: 60,
	pb.RateLimitResponse_RateLimit_HOUR:   3600,
	pb.RateLimitResponse_RateLimit_DAY:    86400,
	pb.RateLimitResponse_RateLimit_WEEK:   7 * 86400,
	pb.RateLimitResponse_RateLimit_MONTH:  30 * 86400,
	pb.RateLimitResponse_RateLimit_YEAR:   365 * 86400,
}

func parseUnit(unit string) (pb.RateLimitResponse_RateLimit_Unit, bool) {
	v, ok := pb.RateLimitResponse_RateLimit_Unit_value[strings.ToUpper(unit)]
	u := pb.RateLimitResponse_RateLimit_Unit(v)
	return u, ok && u != pb.RateLimitResponse_RateLimit_UNKNOWN
}

// buildRule reads a descriptor's rate_limit or rate_limits.
func buildRule(file, statKey string, d *yamlDescriptor) (*Rule, error) {
	if d.RateLimit != nil && len(d.RateLimits) > 0 {
		return nil, errorf(file, "config error, '%s' has both rate_limit and rate_limits", statKey)
	}
	yrls := d.RateLimits
	if d.RateLimit != nil {
		yrls = []*yamlRateLimit{d.RateLimit}
	}
	if len(yrls) == 0 {
		return nil, nil
	}
	first := yrls[0]
	rule := &Rule{Unlimited: first.Unlimited, Name: first.Name, ShadowMode: d.ShadowMode, StatKey: statKey, DetailedMetric: d.DetailedMetric}
	for _, r := range first.Replaces {
		if r.Name == "" {
			return nil, errorf(file, "should not have an empty replaces entry")
		}
		if r.Name == first.Name {
			return nil, errorf(file, "replaces should not contain name of same descriptor")
		}
		rule.Replaces = append(rule.Replaces, r.Name)
	}
	if first.Block != "" {
		b, err := time.ParseDuration(first.Block)
		if err != nil || b < time.Millisecond {
			return nil, errorf(file, "config error, invalid block '%s'", first.Block)
		}
		rule.Block = b
	}
	for _, y := range yrls {
		limit, err := buildLimit(file, y)
		if err != nil {
			return nil, err
		}
		if limit != nil {
			rule.Limits = append(rule.Limits, *limit)
		}
	}
	return rule, checkSeveral(file, statKey, rule)
}

// checkSeveral allows several limits only as one sliding-window call: that is what Redis
// decides atomically.
func checkSeveral(file, statKey string, rule *Rule) error {
	if len(rule.Limits) < 2 {
		return nil
	}
	for _, l := range rule.Limits {
		if l.Algorithm != Slide {
			return errorf(file, "config error, rate_limits of '%s' must all be algorithm: slide (one atomic call), not %s", statKey, l.Algorithm)
		}
	}
	return nil
}

func buildLimit(file string, y *yamlRateLimit) (*Limit, error) {
	unit, validUnit := parseUnit(y.Unit)
	if y.Unlimited {
		if validUnit {
			return nil, errorf(file, "should not specify rate limit unit when unlimited")
		}
		return nil, nil
	}
	l := &Limit{Requests: y.RequestsPerUnit, Unit: unit, Algorithm: Fixed}
	if y.Window != "" {
		w, err := time.ParseDuration(y.Window)
		if err != nil || w < time.Millisecond || w%time.Millisecond != 0 {
			return nil, errorf(file, "config error, invalid window '%s'", y.Window)
		}
		if y.Unit != "" || y.UnitMultiplier != 0 {
			return nil, errorf(file, "config error, window '%s' is given with unit or unit_multiplier", y.Window)
		}
		l.Window, l.Unit = w, pb.RateLimitResponse_RateLimit_UNKNOWN
	} else {
		if !validUnit {
			return nil, errorf(file, "invalid rate limit unit '%s'", y.Unit)
		}
		n := max(y.UnitMultiplier, 1)
		if y.UnitMultiplier < 0 {
			return nil, errorf(file, "config error, invalid unit_multiplier %d", y.UnitMultiplier)
		}
		l.Window = time.Duration(n*UnitSeconds[unit]) * time.Second
	}
	if err := setAlgorithm(file, l, y); err != nil {
		return nil, err
	}
	return l, nil
}

func setAlgorithm(file string, l *Limit, y *yamlRateLimit) error {
	switch Algorithm(y.Algorithm) {
	case "", Fixed:
		l.Algorithm = Fixed
	case Slide:
		l.Algorithm = Slide
	case GCRA:
		l.Algorithm = GCRA
	default:
		return errorf(file, "config error, invalid algorithm '%s' (fixed, slide or gcra)", y.Algorithm)
	}
	if y.Burst != 0 {
		if l.Algorithm != GCRA || y.Burst < 0 {
			return errorf(file, "config error, burst %d needs algorithm: gcra and a positive value", y.Burst)
		}
		l.Burst = y.Burst
	}
	return nil
}

// Seconds is a window in whole seconds, rounded up, as the protocol's unit counts them.
func (l Limit) Seconds() int64 {
	return int64((l.Window + time.Second - 1) / time.Second)
}

func (l Limit) String() string {
	return fmt.Sprintf("%d per %v (%s)", l.Requests, l.Window, l.Algorithm)
}
