package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// benchConfig is the one configuration every service reads, in upstream's format: one key,
// a limit no round reaches, so every answer is OK and every call reaches Redis.
const benchConfig = `domain: bench
descriptors:
  - key: user
    rate_limit:
      unit: minute
      requests_per_unit: 100000000
`

// redisTimeout is both services' REDIS_TIMEOUT: how long a call waits for a Redis that does
// not answer (the hung-Redis measurement).
const redisTimeout = time.Second

// service is one rate limit service process and the gRPC connections the load uses.
type service struct {
	*proc
	redis *redisServer
	conns []*grpc.ClientConn
	rpc   []pb.RateLimitServiceClient
}

// startService runs binary with upstream's settings, the same for either service: the
// configuration folder, Redis over TCP, statsd off, loopback ports.
func startService(name, binary, dir string, r *redisServer, conns int) (*service, error) {
	root := filepath.Join(dir, name+"-runtime")
	config := filepath.Join(root, "ratelimit", "config")
	if err := os.MkdirAll(config, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(config, "bench.yaml"), []byte(benchConfig), 0o644); err != nil {
		return nil, err
	}
	ports := make([]int, 3)
	for i := range ports {
		var err error
		if ports[i], err = freePort(); err != nil {
			return nil, err
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "RUNTIME_ROOT=" + root, "RUNTIME_SUBDIRECTORY=ratelimit",
		"RUNTIME_APPDIRECTORY=config", "USE_STATSD=false", "LOG_LEVEL=warn", "REDIS_SOCKET_TYPE=tcp",
		"REDIS_URL=" + r.addr, "REDIS_TIMEOUT=" + redisTimeout.String(), "GRPC_HOST=127.0.0.1", "GRPC_PORT=" + strconv.Itoa(ports[0]), "HOST=127.0.0.1",
		"PORT=" + strconv.Itoa(ports[1]), "DEBUG_HOST=127.0.0.1", "DEBUG_PORT=" + strconv.Itoa(ports[2])}
	p, err := start(name, env, dir, binary)
	if err != nil {
		return nil, err
	}
	s := &service{proc: p, redis: r}
	for range conns {
		conn, err := grpc.NewClient("127.0.0.1:"+strconv.Itoa(ports[0]), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			s.stop()
			return nil, err
		}
		s.conns = append(s.conns, conn)
		s.rpc = append(s.rpc, pb.NewRateLimitServiceClient(conn))
	}
	if err := s.waitReady(); err != nil {
		s.stop()
		return nil, fmt.Errorf("%s: %w (log in %s)", name, err, dir)
	}
	return s, nil
}

// waitReady waits until a call is answered OK: listening, configuration loaded.
func (s *service) waitReady() error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := s.rpc[0].ShouldRateLimit(ctx, request("bench", 0))
		cancel()
		if err == nil && resp.GetOverallCode() == pb.RateLimitResponse_OK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready in 60 s: %v %v", resp, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *service) stop() {
	for _, c := range s.conns {
		_ = c.Close()
	}
	s.proc.stop()
}
