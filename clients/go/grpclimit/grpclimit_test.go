package grpclimit_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/grpclimit"
	"github.com/winlimit/winlimit/clients/go/internal/redistest"
)

// healthClient serves the gRPC health service behind the interceptors on loopback.
func healthClient(t *testing.T, l winlimit.Deciding, limit int64) healthpb.HealthClient {
	t.Helper()
	ic, err := grpclimit.New(l, func(ctx context.Context, l winlimit.Deciding, key, method string) (winlimit.Decision, error) {
		return l.Fixed(ctx, key+method, time.Minute, limit)
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.UnaryInterceptor(ic.UnaryServerInterceptor()), grpc.StreamInterceptor(ic.StreamServerInterceptor()))
	healthpb.RegisterHealthServer(srv, health.NewServer())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return healthpb.NewHealthClient(conn)
}

func redisLimiter(t *testing.T, opts ...winlimit.Option) *winlimit.Limiter {
	t.Helper()
	srv, err := redistest.Start("redis-7.0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	l, err := winlimit.New(rdb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// outcomes counts what the limiter reports, by outcome.
type outcomes struct {
	mu     sync.Mutex
	counts map[string]int
}

func (o *outcomes) add(outcome string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.counts[outcome]++
}

func (o *outcomes) Decided(d winlimit.Decision, shadow bool) {
	if d.Allowed {
		o.add("allowed")
	} else {
		o.add("rejected")
	}
}
func (o *outcomes) Failed(string)                                        { o.add("error") }
func (o *outcomes) Timed(string, time.Duration)                          {}
func (o *outcomes) BreakerChanged(string, winlimit.BreakerState, string) {}

func TestEachCallIsReportedOnceByTheLimitersObserver(t *testing.T) {
	seen := &outcomes{counts: map[string]int{}}
	client := healthClient(t, redisLimiter(t, winlimit.WithObserver(seen)), 2)
	for i := 0; i < 3; i++ {
		_, _ = client.Check(context.Background(), &healthpb.HealthCheckRequest{})
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if seen.counts["allowed"] != 2 || seen.counts["rejected"] != 1 || len(seen.counts) != 2 {
		t.Fatalf("%v", seen.counts)
	}
}

func TestAUnaryCallOverTheLimitIsResourceExhaustedWithRetryInfo(t *testing.T) {
	client := healthClient(t, redisLimiter(t), 1)
	ctx := context.Background()
	var header metadata.MD
	if _, err := client.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Header(&header)); err != nil {
		t.Fatal(err)
	}
	if got := header.Get("ratelimit"); len(got) != 1 || got[0] != `"winlimit";r=0;t=60` {
		t.Fatalf("metadata %v", header)
	}
	_, err := client.Check(ctx, &healthpb.HealthCheckRequest{})
	st := status.Convert(err)
	if st.Code() != codes.ResourceExhausted {
		t.Fatalf("%v", err)
	}
	var delay time.Duration
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.RetryInfo); ok {
			delay = info.RetryDelay.AsDuration()
		}
	}
	if delay <= 59*time.Second || delay > time.Minute {
		t.Fatalf("retry delay %v", delay)
	}
}

func TestAStreamIsLimitedWhenItOpens(t *testing.T) {
	client := healthClient(t, winlimit.NewMemory(), 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := client.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatalf("the first stream: %v", err)
	}
	stream, err = client.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); status.Code(err) != codes.ResourceExhausted || err == io.EOF {
		t.Fatalf("the second stream: %v", err)
	}
}

func TestACheckThatFailsOnItsOwnIsInternalNotUnavailable(t *testing.T) {
	ic, err := grpclimit.New(winlimit.NewMemory(), func(context.Context, winlimit.Deciding, string, string) (winlimit.Decision, error) {
		return winlimit.Decision{}, errors.New("a bug")
	}, grpclimit.FailOpen(), grpclimit.WithKey(func(context.Context, string) (string, error) { return "k", nil }))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ic.UnaryServerInterceptor()(context.Background(), nil, &grpc.UnaryServerInfo{FullMethod: "/x.Y/Z"},
		func(context.Context, any) (any, error) { return "reached", nil })
	if status.Code(err) != codes.Internal {
		t.Fatalf("%v", err)
	}
}
