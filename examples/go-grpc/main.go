// Go with gRPC: 3 SMS per hour per user, a sliding hour on the server's clock, through
// winlimit's gRPC server interceptors (grpclimit). The user is the call's "user" metadata.
//
// Run: REDIS_URL=redis://127.0.0.1:6379 PORT=8000 go run . (in this folder), then
// go run ./client -addr 127.0.0.1:8000 -user alice -calls 4: the fourth ends with
// ResourceExhausted and a RetryInfo.
package main

import (
	"context"
	"log"
	"net"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/grpclimit"
	"github.com/winlimit/winlimit/examples/go-grpc/sms"
)

func main() {
	options, err := redis.ParseURL(envOr("REDIS_URL", "redis://127.0.0.1:6379"))
	if err != nil {
		log.Fatal(err)
	}
	limiter, err := winlimit.New(redis.NewClient(options))
	if err != nil {
		log.Fatal(err)
	}
	server, err := newServer(limiter)
	if err != nil {
		log.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:"+envOr("PORT", "8000"))
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("serving gRPC on %s", lis.Addr())
	log.Fatal(server.Serve(lis))
}

// newServer serves sms.SMS/Send, limited per user.
func newServer(limiter *winlimit.Limiter) (*grpc.Server, error) {
	// --8<-- [start:limit]
	threePerHour := func(ctx context.Context, l winlimit.Deciding, key, method string) (winlimit.Decision, error) {
		return l.Slide(ctx, key, []winlimit.Window{{Length: time.Hour, Limit: 3}})
	}
	interceptors, err := grpclimit.New(limiter, threePerHour, grpclimit.WithKey(userKey), grpclimit.WithPrefix("sms:"))
	if err != nil {
		return nil, err
	}
	server := grpc.NewServer(grpc.UnaryInterceptor(interceptors.UnaryServerInterceptor()))
	// --8<-- [end:limit]
	sms.Register(server, sendSMS)
	return server, nil
}

// userKey keys a call by its "user" metadata; a call without one is not limited.
func userKey(ctx context.Context, _ string) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if users := md.Get("user"); len(users) > 0 {
		return users[0], nil
	}
	return "", nil
}

func sendSMS(_ context.Context, user string) (string, error) {
	return "sent to " + user, nil
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}
