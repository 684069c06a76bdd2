// Package service answers envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit with
// upstream's meaning, each descriptor decided by winlimit in Redis.
package service

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"sync/atomic"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	winlimit "github.com/winlimit/winlimit/clients/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/winlimit/winlimit/services/ratelimit/internal/config"
)

// Options are the settings the answers depend on.
type Options struct {
	KeyPrefix      string
	GlobalShadow   bool
	NearLimitRatio float64
	Headers        *HeaderNames // nil: no response headers
	Stats          Stats        // nil: none
	Logger         *slog.Logger
}

// HeaderNames are LIMIT_LIMIT_HEADER, LIMIT_REMAINING_HEADER and LIMIT_RESET_HEADER.
type HeaderNames struct{ Limit, Remaining, Reset string }

// Service is the rate limit service.
type Service struct {
	pb.UnimplementedRateLimitServiceServer
	limiter winlimit.Deciding
	config  atomic.Pointer[config.Config]
	opts    Options
}

// New gives a service deciding with limiter under cfg; a nil cfg answers every call with an
// error until SetConfig.
func New(limiter winlimit.Deciding, cfg *config.Config, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Service{limiter: limiter, opts: opts}
	s.config.Store(cfg)
	return s
}

// SetConfig puts a new configuration in force for the calls that start after it.
func (s *Service) SetConfig(cfg *config.Config) { s.config.Store(cfg) }

// Config is the configuration in force.
func (s *Service) Config() *config.Config { return s.config.Load() }

// checked is one descriptor of a request: its rule and what its call took.
type checked struct {
	match    *config.Match
	key      string
	taken    int64 // units recorded: given back if the request is rejected
	rejected bool  // rejected and not in shadow mode
	status   *pb.RateLimitResponse_DescriptorStatus
}

// ShouldRateLimit decides every descriptor; a request answered OVER_LIMIT takes nothing:
// what its other descriptors took is given back.
func (s *Service) ShouldRateLimit(ctx context.Context, req *pb.RateLimitRequest) (*pb.RateLimitResponse, error) {
	if req.GetDomain() == "" {
		return nil, status.Error(codes.Unknown, "rate limit domain must not be empty")
	}
	if len(req.GetDescriptors()) == 0 {
		return nil, status.Error(codes.Unknown, "rate limit descriptor list must not be empty")
	}
	if s.config.Load() == nil {
		// Only with FORCE_START_WITHOUT_INITIAL_CONFIG, before the xDS server's first
		// configuration: upstream's error, so Envoy's failure_mode_deny decides.
		return nil, status.Error(codes.Unknown, "no rate limit configuration loaded")
	}
	items := s.matches(req)
	overLimit := false
	for i, d := range req.GetDescriptors() {
		if err := s.check(ctx, req, d, items[i]); err != nil {
			s.giveBack(ctx, items[:i])
			return nil, answerError(err)
		}
		overLimit = overLimit || items[i].rejected
	}
	resp := &pb.RateLimitResponse{OverallCode: pb.RateLimitResponse_OK, Statuses: make([]*pb.RateLimitResponse_DescriptorStatus, len(items))}
	if overLimit {
		resp.OverallCode = pb.RateLimitResponse_OVER_LIMIT
		if s.opts.GlobalShadow {
			resp.OverallCode = pb.RateLimitResponse_OK
			s.statsGlobalShadow()
		} else {
			s.giveBack(ctx, items)
		}
	}
	for i, it := range items {
		resp.Statuses[i] = it.status
	}
	if s.opts.Headers != nil {
		resp.ResponseHeadersToAdd = s.headers(items)
	}
	return resp, nil
}

// matches finds each descriptor's rule, then drops the rules another one replaces.
func (s *Service) matches(req *pb.RateLimitRequest) []*checked {
	cfg := s.config.Load()
	items := make([]*checked, len(req.GetDescriptors()))
	replaced := map[string]bool{}
	for i, d := range req.GetDescriptors() {
		items[i] = &checked{match: find(cfg, req.GetDomain(), d)}
		if m := items[i].match; m != nil {
			for _, name := range m.Rule.Replaces {
				replaced[name] = true
			}
		}
	}
	for _, it := range items {
		if it.match != nil && it.match.Rule.Name != "" && replaced[it.match.Rule.Name] {
			it.match = nil
		}
	}
	return items
}

func find(cfg *config.Config, domain string, d *rlv3.RateLimitDescriptor) *config.Match {
	if cfg == nil || !cfg.HasDomain(domain) {
		return nil
	}
	if d.GetLimit() != nil {
		rule := overrideRule(domain, d)
		if rule == nil {
			return nil
		}
		values := make([]string, len(d.GetEntries()))
		for i, e := range d.GetEntries() {
			values[i] = e.GetValue()
		}
		return &config.Match{Rule: rule, StatKey: rule.StatKey, KeyValues: values}
	}
	return cfg.Find(domain, d)
}

// hitsAddend is upstream's cost: the descriptor's own hits_addend when set (0 checks without
// taking), else the request's, at least 1.
func hitsAddend(req *pb.RateLimitRequest, d *rlv3.RateLimitDescriptor) int64 {
	if h := d.GetHitsAddend(); h != nil {
		return int64(min(h.GetValue(), math.MaxInt64))
	}
	return int64(max(1, req.GetHitsAddend()))
}

// check decides one descriptor and fills in its status.
func (s *Service) check(ctx context.Context, req *pb.RateLimitRequest, d *rlv3.RateLimitDescriptor, it *checked) error {
	m := it.match
	switch {
	case m == nil:
		it.status = &pb.RateLimitResponse_DescriptorStatus{Code: pb.RateLimitResponse_OK}
		return nil
	case m.Rule.Unlimited || len(m.Rule.Limits) == 0:
		it.status = &pb.RateLimitResponse_DescriptorStatus{Code: pb.RateLimitResponse_OK, LimitRemaining: math.MaxUint32}
		return nil
	}
	it.key = counterKey(s.opts.KeyPrefix, req.GetDomain(), d.GetEntries(), m.KeyValues, m.Rule)
	hits := hitsAddend(req, d)
	var opts []winlimit.CallOption
	switch {
	case d.GetIsNegativeHits() && hits > 0:
		dec, err := refund(ctx, s.limiter, it.key, m.Rule, hits)
		if err != nil {
			return err
		}
		it.status = s.statusOf(m, dec, true)
		return nil
	case d.GetIsNegativeHits() || hits == 0:
		opts = append(opts, winlimit.Peek())
	case hits != 1:
		opts = append(opts, winlimit.Cost(hits))
	}
	dec, err := decide(ctx, s.limiter, it.key, m.Rule, opts...)
	if err != nil {
		return err
	}
	peek := hits == 0 || d.GetIsNegativeHits()
	it.status = s.statusOf(m, dec, dec.Allowed || peek)
	if dec.Allowed && !peek {
		it.taken = hits
	}
	shadow := m.Rule.ShadowMode
	it.rejected = !dec.Allowed && !peek && !shadow
	s.record(m, dec, hits, peek)
	return nil
}

func (s *Service) statusOf(m *config.Match, dec winlimit.Decision, ok bool) *pb.RateLimitResponse_DescriptorStatus {
	l := binding(m.Rule, dec)
	st := &pb.RateLimitResponse_DescriptorStatus{
		Code:               pb.RateLimitResponse_OK,
		CurrentLimit:       protoLimit(l, m.Rule.Name),
		DurationUntilReset: &durationpb.Duration{Seconds: wholeSeconds(dec.ResetAfter)},
	}
	if ok {
		st.LimitRemaining = clampUint32(dec.Remaining)
	} else if !m.Rule.ShadowMode {
		st.Code = pb.RateLimitResponse_OVER_LIMIT
	}
	return st
}

// giveBack refunds what the descriptors took: the request is rejected (or failed) as a whole.
func (s *Service) giveBack(ctx context.Context, items []*checked) {
	for _, it := range items {
		if it.taken == 0 {
			continue
		}
		dec, err := refund(ctx, s.limiter, it.key, it.match.Rule, it.taken)
		if err != nil {
			s.opts.Logger.Warn("giving back a rejected request's units failed", "key", it.key, "units", it.taken, "error", err)
			continue
		}
		it.taken = 0
		if it.status != nil && it.status.Code == pb.RateLimitResponse_OK {
			it.status.LimitRemaining = clampUint32(dec.Remaining)
		}
	}
}

// answerError: Redis failing is UNAVAILABLE, so Envoy's failure_mode_deny decides.
func answerError(err error) error {
	if winlimit.IsRedisError(err) || errors.Is(err, winlimit.ErrUnavailable) {
		return status.Error(codes.Unavailable, err.Error())
	}
	return status.Error(codes.Unknown, err.Error())
}
