package itest

import (
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

const perHour = `domain: api
descriptors:
  - key: user
    rate_limit:
      unit: hour
      requests_per_unit: 10
`

func TestHitsAddendIsTheRequestsCostAndADescriptorsOwnOverridesIt(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perHour}, nil)
	costly := request("api", entries("user", "u"))
	costly.HitsAddend = 4
	inOneWindow(t, url, time.Hour, 5*time.Second, func() error {
		return s.sequence(t, []step{
			{costly, ok, []want{{code: ok, remaining: 6}}},
			{request("api", withHits(entries("user", "u"), 0)), ok, []want{{code: ok, remaining: 6}}}, // checks, takes nothing
			{request("api", withHits(entries("user", "u"), 6)), ok, []want{{code: ok, remaining: 0}}},
			{request("api", withHits(entries("user", "u"), 0)), ok, []want{{code: ok, remaining: 0}}},
			{costly, over, []want{{code: over, remaining: 0}}},
		})
	})
}

func TestANegativeHitGivesUnitsBackButNeverMoreThanWereTaken(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perHour}, nil)
	back := func(n uint64) *pb.RateLimitRequest {
		d := withHits(entries("user", "u"), n)
		d.IsNegativeHits = true
		return request("api", d)
	}
	inOneWindow(t, url, time.Hour, 5*time.Second, func() error {
		return s.sequence(t, []step{
			{request("api", withHits(entries("user", "u"), 3)), ok, []want{{code: ok, remaining: 7}}},
			{back(2), ok, []want{{code: ok, remaining: 9}}},
			{back(5), ok, []want{{code: ok, remaining: 10}}},
			{request("api", entries("user", "u")), ok, []want{{code: ok, remaining: 9}}},
		})
	})
}

func TestEnvoysPerDescriptorLimitOverridesTheFile(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perHour}, nil)
	d := entries("user", "u")
	d.Limit = &rlv3.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 2, Unit: 3} // 2 an hour
	inOneWindow(t, url, time.Hour, 5*time.Second, func() error {
		return s.sequence(t, []step{
			{request("api", d), ok, []want{{code: ok, remaining: 1, perUnit: 2}}},
			{request("api", d), ok, []want{{code: ok, remaining: 0}}},
			{request("api", d), over, []want{{code: over}}},
		})
	})
}

func TestGlobalShadowModeAnswersOKAndTakesTheUnits(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perMinute}, env{"SHADOW_MODE": "true"})
	inOneWindow(t, url, time.Minute, 2*time.Second, func() error {
		steps := upstreamSequence("g")[:3]
		both := steps[0].req
		return s.sequence(t, append(steps,
			step{both, ok, []want{{code: over, remaining: 0}, {code: ok, remaining: 96}}}))
	})
}
