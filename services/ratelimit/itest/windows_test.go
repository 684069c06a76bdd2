package itest

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// untilNextWindow waits, by the server's clock, for the window of length after now to start.
func untilNextWindow(t *testing.T, url string, length time.Duration) {
	t.Helper()
	now := serverNow(t, url)
	time.Sleep(now.Truncate(length).Add(length).Sub(now) + 5*time.Millisecond)
}

func TestAFixedWindowEndsOnTheUnitsEdgeFromTheEpoch(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": "domain: api\ndescriptors:\n  - key: user\n    rate_limit:\n      unit: second\n      requests_per_unit: 2\n"}, nil)
	user := request("api", entries("user", "edge"))
	inOneWindow(t, url, time.Second, 300*time.Millisecond, func() error {
		return s.sequence(t, []step{
			{user, ok, []want{{code: ok, remaining: 1, reset: 1}}},
			{user, ok, []want{{code: ok, remaining: 0, reset: 1}}},
			{user, over, []want{{code: over, remaining: 0, reset: 1}}},
		})
	})
	untilNextWindow(t, url, time.Second)
	expect(t, "the next second", s.ask(t, user), ok, want{code: ok, remaining: 1, reset: 1})
}

func TestDurationUntilResetIsTheUnitLessTheWholeSecondsGone(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perMinute}, nil)
	before := serverNow(t, url).Unix()
	reset := s.ask(t, request("api", entries("user", "r"))).GetStatuses()[0].GetDurationUntilReset().GetSeconds()
	after := serverNow(t, url).Unix()
	if latest, earliest := 60-before%60, 60-after%60; (reset > latest || reset < earliest) && after/60 == before/60 {
		t.Fatalf("reset %d, want %d..%d", reset, earliest, latest)
	}
}

const longUnits = `domain: api
descriptors:
  - key: week
    rate_limit: {unit: week, requests_per_unit: 5}
  - key: month
    rate_limit: {unit: month, requests_per_unit: 5}
  - key: year
    rate_limit: {unit: year, requests_per_unit: 5}
`

func TestAWeekAMonthAndAYearAre7And30And365DayWindowsFromTheEpoch(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": longUnits}, nil)
	for unit, days := range map[string]int64{"week": 7, "month": 30, "year": 365} {
		length := days * 86400
		before := serverNow(t, url).Unix()
		reset := s.ask(t, request("api", entries(unit, "u"))).GetStatuses()[0].GetDurationUntilReset().GetSeconds()
		after := serverNow(t, url).Unix()
		if latest, earliest := length-before%length, length-after%length; (reset > latest || reset < earliest) && after/length == before/length {
			t.Errorf("%s: reset %d s, want %d..%d (a %d-day window from the epoch)", unit, reset, earliest, latest, days)
		}
	}
}

func TestSlideNeverAdmitsMoreThanTheLimitInAnyWindow(t *testing.T) {
	url := moduleEdition.url(t)
	file := "domain: api\ndescriptors:\n  - key: user\n    rate_limit:\n      algorithm: slide\n      window: 2s\n      requests_per_unit: 3\n"
	s := startRLS(t, url, map[string]string{"api.yaml": file}, nil)
	user := request("api", entries("user", "s"))
	first := serverNow(t, url)
	for i := 0; i < 3; i++ {
		expect(t, "filling", s.ask(t, user), ok, want{code: ok, remaining: uint32(2 - i)})
	}
	// Across the fixed second edges that follow, nothing is admitted until the first
	// request has left its 2 s window.
	for {
		resp := s.ask(t, user)
		now := serverNow(t, url)
		if resp.GetOverallCode() == ok {
			if now.Sub(first) < 2*time.Second {
				t.Fatalf("a fourth request admitted %v after the first", now.Sub(first))
			}
			return
		}
		if now.Sub(first) > 10*time.Second {
			t.Fatal("nothing admitted after 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSeveralLimitsOnOneDescriptorAreOneCall(t *testing.T) {
	url := moduleEdition.url(t)
	file := `domain: api
descriptors:
  - key: user
    rate_limits:
      - algorithm: slide
        unit: second
        requests_per_unit: 10
      - algorithm: slide
        unit: hour
        requests_per_unit: 3
`
	s := startRLS(t, url, map[string]string{"api.yaml": file}, nil)
	rdb := redis.NewClient(&redis.Options{Addr: url})
	defer rdb.Close()
	user := request("api", entries("user", "m"))
	for i := 0; i < 3; i++ {
		expect(t, "within both", s.ask(t, user), ok, want{code: ok, remaining: uint32(2 - i), perUnit: 3})
	}
	expect(t, "the hour's limit", s.ask(t, user), over, want{code: over, perUnit: 3})
	if keys, err := rdb.Keys(context.Background(), "*").Result(); err != nil || len(keys) != 1 {
		t.Fatalf("keys %v (%v): both limits are one key, one call", keys, err)
	}
}

func TestGCRAWithBurstAndABlockAfterARejection(t *testing.T) {
	url := moduleEdition.url(t)
	file := `domain: api
descriptors:
  - key: user
    rate_limit:
      algorithm: gcra
      burst: 3
      unit: hour
      requests_per_unit: 1
      block: 10m
`
	s := startRLS(t, url, map[string]string{"api.yaml": file}, nil)
	user := request("api", entries("user", "g"))
	for i := 0; i < 3; i++ {
		expect(t, "the burst", s.ask(t, user), ok, want{code: ok, remaining: uint32(2 - i)})
	}
	resp := s.ask(t, user)
	expect(t, "past the burst", resp, over, want{code: over})
	if reset := resp.GetStatuses()[0].GetDurationUntilReset().GetSeconds(); reset < 600 {
		t.Fatalf("blocked for %d s, want at least 600", reset)
	}
}

func TestUnitMultiplierMakesAWindowOfSeveralUnits(t *testing.T) {
	url := moduleEdition.url(t)
	file := "domain: api\ndescriptors:\n  - key: user\n    rate_limit:\n      unit: minute\n      unit_multiplier: 5\n      requests_per_unit: 2\n"
	s := startRLS(t, url, map[string]string{"api.yaml": file}, nil)
	inOneWindow(t, url, 5*time.Minute, 2*time.Second, func() error {
		return s.sequence(t, []step{
			{request("api", entries("user", "x")), ok, []want{{code: ok, remaining: 1}}},
		})
	})
	now := serverNow(t, url).Unix()
	reset := s.ask(t, request("api", entries("user", "x"))).GetStatuses()[0].GetDurationUntilReset().GetSeconds()
	if want := 300 - now%300; reset > want || reset < want-2 {
		t.Fatalf("reset %d s, want about %d (a 5-minute window from the epoch)", reset, want)
	}
}
