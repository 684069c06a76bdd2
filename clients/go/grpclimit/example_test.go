package grpclimit_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/grpclimit"
	"github.com/winlimit/winlimit/clients/go/internal/redistest"
)

// 2 calls a second per caller and method, on a gRPC server on loopback: the third call ends
// with ResourceExhausted. Shown in clients/go/README.md, "gRPC" (there with 50 a second).
func ExampleNew() {
	redisSrv, err := redistest.Start("redis-7.0", true)
	if err != nil {
		panic(err)
	}
	defer redisSrv.Close()
	limiter, err := winlimit.New(redis.NewClient(&redis.Options{Addr: redisSrv.Addr()}))
	if err != nil {
		panic(err)
	}

	ic, _ := grpclimit.New(limiter, func(ctx context.Context, l winlimit.Deciding, key, method string) (winlimit.Decision, error) {
		return l.GCRA(ctx, key+method, time.Second, 2)
	})
	srv := grpc.NewServer(grpc.UnaryInterceptor(ic.UnaryServerInterceptor()), grpc.StreamInterceptor(ic.StreamServerInterceptor()))

	healthpb.RegisterHealthServer(srv, health.NewServer())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	for i := 0; i < 3; i++ {
		_, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
		fmt.Println(status.Code(err))
	}
	// Output:
	// OK
	// OK
	// ResourceExhausted
}
