// A gRPC client of the example: sends -calls SMS to -user and prints, per call, its status
// code, the retry delay of a rejected call (its RetryInfo, in whole seconds), and the
// ratelimit-policy and ratelimit fields of the answer's metadata.
//
// Run: go run ./client -addr 127.0.0.1:8000 -user alice -calls 4
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/winlimit/winlimit/examples/go-grpc/sms"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "the server's address")
	user := flag.String("user", "alice", "the user to send SMS to")
	calls := flag.Int("calls", 4, "how many SMS to send")
	flag.Parse()
	conn, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	for i := 0; i < *calls; i++ {
		fmt.Println(send(conn, *user))
	}
}

// send makes one call and describes its answer on one line.
func send(conn *grpc.ClientConn, user string) string {
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "user", user), 30*time.Second)
	defer cancel()
	var header metadata.MD
	_, err := sms.Call(ctx, conn, user, grpc.Header(&header))
	line := []string{status.Code(err).String(), "retry=" + retryDelay(err)}
	for _, field := range []string{"ratelimit-policy", "ratelimit"} {
		line = append(line, field+"="+strings.Join(header.Get(field), ","))
	}
	return strings.Join(line, " ")
}

// retryDelay is the RetryInfo's delay in whole seconds, rounded up, or "-" without one.
func retryDelay(err error) string {
	for _, detail := range status.Convert(err).Details() {
		if info, ok := detail.(*errdetails.RetryInfo); ok {
			delay := info.GetRetryDelay().AsDuration()
			return fmt.Sprint(int64((delay + time.Second - 1) / time.Second))
		}
	}
	return "-"
}
