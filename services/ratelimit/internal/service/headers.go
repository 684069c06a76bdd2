package service

import (
	"strconv"

	core "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

// headers are upstream's three response headers for the descriptor closest to its limit (a
// rejecting one first).
func (s *Service) headers(items []*checked) []*core.HeaderValue {
	var pick *pb.RateLimitResponse_DescriptorStatus
	for _, it := range items {
		st := it.status
		if st == nil || st.CurrentLimit == nil {
			continue
		}
		if pick == nil || st.Code == pb.RateLimitResponse_OVER_LIMIT && pick.Code != pb.RateLimitResponse_OVER_LIMIT ||
			st.Code == pick.Code && st.LimitRemaining < pick.LimitRemaining {
			pick = st
		}
	}
	if pick == nil {
		return nil
	}
	h := s.opts.Headers
	return []*core.HeaderValue{
		{Key: h.Limit, Value: strconv.FormatUint(uint64(pick.CurrentLimit.RequestsPerUnit), 10)},
		{Key: h.Remaining, Value: strconv.FormatUint(uint64(pick.LimitRemaining), 10)},
		{Key: h.Reset, Value: strconv.FormatInt(pick.DurationUntilReset.GetSeconds(), 10)},
	}
}
