package service

import (
	"math"

	winlimit "github.com/winlimit/winlimit/clients/go"

	"github.com/winlimit/winlimit/services/ratelimit/internal/config"
)

// Stats receives upstream's per-rule counters: hits, over_limit, near_limit, within_limit
// and shadow_mode, under the rule's metric key.
type Stats interface {
	Add(statKey string, c Counts)
	GlobalShadow()
}

// Counts are one decision's increments.
type Counts struct{ Total, Over, Near, Within, Shadow uint64 }

// record counts a decision as upstream's base limiter does. A rejection records nothing in
// Redis here, so the count before is the limit less what remained.
func (s *Service) record(m *config.Match, dec winlimit.Decision, hits int64, peek bool) {
	if s.opts.Stats == nil {
		return
	}
	c := Counts{Total: uint64(hits)}
	limit := uint64(max(dec.Limit, 0))
	near := uint64(math.Floor(float64(limit) * s.opts.NearLimitRatio))
	h := uint64(hits)
	var before, after uint64
	if dec.Allowed || peek {
		after = limit - min(limit, uint64(max(dec.Remaining, 0)))
		before = after - min(after, h)
	} else {
		before = limit - min(limit, uint64(max(dec.Remaining, 0)))
		after = before + h
	}
	switch {
	case after > limit && before >= limit:
		c.Over = h
	case after > limit:
		c.Over = after - limit
		c.Near = limit - max(near, before)
	default:
		c.Within = h
		if after > near {
			c.Near = after - max(near, before)
		}
	}
	if after > limit && m.Rule.ShadowMode {
		c.Shadow = c.Over
	}
	s.opts.Stats.Add(m.StatKey, c)
}

func (s *Service) statsGlobalShadow() {
	if s.opts.Stats != nil {
		s.opts.Stats.GlobalShadow()
	}
}
