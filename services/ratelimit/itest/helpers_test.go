package itest

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/redis/go-redis/v9"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

const (
	ok   = pb.RateLimitResponse_OK
	over = pb.RateLimitResponse_OVER_LIMIT
)

// entries makes a descriptor from key, value pairs.
func entries(kv ...string) *rlv3.RateLimitDescriptor {
	d := &rlv3.RateLimitDescriptor{}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Entries = append(d.Entries, &rlv3.RateLimitDescriptor_Entry{Key: kv[i], Value: kv[i+1]})
	}
	return d
}

func request(domain string, ds ...*rlv3.RateLimitDescriptor) *pb.RateLimitRequest {
	return &pb.RateLimitRequest{Domain: domain, Descriptors: ds}
}

func withHits(d *rlv3.RateLimitDescriptor, n uint64) *rlv3.RateLimitDescriptor {
	d.HitsAddend = wrapperspb.UInt64(n)
	return d
}

// want is one descriptor status: its code and remainder; reset (seconds) when not zero; a
// limit of requests per unit when perUnit is not zero.
type want struct {
	code      pb.RateLimitResponse_Code
	remaining uint32
	reset     int64
	perUnit   uint32
}

func expect(t *testing.T, step string, resp *pb.RateLimitResponse, overall pb.RateLimitResponse_Code, statuses ...want) {
	t.Helper()
	if err := check(step, resp, overall, statuses...); err != nil {
		t.Fatal(err)
	}
}

// check compares a response with what is wanted.
func check(step string, resp *pb.RateLimitResponse, overall pb.RateLimitResponse_Code, statuses ...want) error {
	if resp.GetOverallCode() != overall {
		return fmt.Errorf("%s: overall %v, want %v (%v)", step, resp.GetOverallCode(), overall, resp)
	}
	if len(resp.GetStatuses()) != len(statuses) {
		return fmt.Errorf("%s: %d statuses, want %d", step, len(resp.GetStatuses()), len(statuses))
	}
	for i, w := range statuses {
		got := resp.GetStatuses()[i]
		if got.GetCode() != w.code || got.GetLimitRemaining() != w.remaining {
			return fmt.Errorf("%s: status %d is %v/%d, want %v/%d (%v)", step, i, got.GetCode(), got.GetLimitRemaining(), w.code, w.remaining, got)
		}
		if w.reset != 0 && got.GetDurationUntilReset().GetSeconds() != w.reset {
			return fmt.Errorf("%s: status %d resets in %ds, want %d", step, i, got.GetDurationUntilReset().GetSeconds(), w.reset)
		}
		if w.perUnit != 0 && got.GetCurrentLimit().GetRequestsPerUnit() != w.perUnit {
			return fmt.Errorf("%s: status %d limit %d, want %d", step, i, got.GetCurrentLimit().GetRequestsPerUnit(), w.perUnit)
		}
	}
	return nil
}

// step is one request of a sequence and the answer it must get.
type step struct {
	req      *pb.RateLimitRequest
	overall  pb.RateLimitResponse_Code
	statuses []want
}

// sequence asks each step in turn; the first answer that differs is the error.
func (s *rls) sequence(t *testing.T, steps []step) error {
	t.Helper()
	for i, st := range steps {
		if err := check(fmt.Sprintf("request %d", i+1), s.ask(t, st.req), st.overall, st.statuses...); err != nil {
			return err
		}
	}
	return nil
}

var unlimitedStatus = want{code: ok, remaining: math.MaxUint32}

// serverNow is the Redis server's clock: the windows are aligned on it.
func serverNow(t *testing.T, redisURL string) time.Time {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: redisURL})
	defer rdb.Close()
	now, err := rdb.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now
}

func flush(t *testing.T, redisURL string) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: redisURL})
	defer rdb.Close()
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
}

// inOneWindow runs a request sequence so that it falls inside one window of length by the
// server's clock: it starts at least margin before the window's end (waiting for the next
// window otherwise), and a run that still crossed an edge is flushed and run again. The
// expectations hold for one window; the edges have tests of their own.
func inOneWindow(t *testing.T, redisURL string, length, margin time.Duration, run func() error) {
	t.Helper()
	for attempt := 0; attempt < 10; attempt++ {
		start := serverNow(t, redisURL)
		left := length - time.Duration(start.UnixNano())%length
		if left < margin {
			time.Sleep(left)
			start = serverNow(t, redisURL)
		}
		err := run()
		end := serverNow(t, redisURL)
		if start.Truncate(length).Equal(end.Truncate(length)) {
			if err != nil {
				t.Fatal(err)
			}
			return
		}
		flush(t, redisURL)
	}
	t.Fatalf("no run of the sequence fitted in one %v window in 10 attempts", length)
}
