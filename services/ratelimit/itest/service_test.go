package itest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// binary is winlimit-ratelimit, built once for the run by TestMain.
var binary string

// lockedBuffer collects a process's log while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// rls is one winlimit-ratelimit process with its own configuration folder.
type rls struct {
	cmd       *exec.Cmd
	log       *lockedBuffer
	configDir string
	httpAddr  string
	debugAddr string
	promAddr  string
	grpcAddr  string
	client    pb.RateLimitServiceClient
	exited    chan struct{} // closed when the process has exited
	exitErr   error
}

// env are a service's settings: upstream's names.
type env map[string]string

// startRLS writes the files into a fresh runtime folder, starts the service against redisURL
// and waits until it answers /healthcheck.
func startRLS(t *testing.T, redisURL string, files map[string]string, settings env) *rls {
	t.Helper()
	s, err := launch(t, redisURL, files, settings)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func launch(t *testing.T, redisURL string, files map[string]string, settings env) (*rls, error) {
	root := t.TempDir()
	s := &rls{log: &lockedBuffer{}, configDir: filepath.Join(root, "ratelimit", "config"), exited: make(chan struct{})}
	if err := os.MkdirAll(s.configDir, 0o755); err != nil {
		return nil, err
	}
	for name, content := range files {
		s.write(t, name, content)
	}
	ports := make([]int, 4)
	for i := range ports {
		ports[i], _ = freePort()
	}
	s.httpAddr, s.promAddr = fmt.Sprintf("127.0.0.1:%d", ports[1]), fmt.Sprintf("127.0.0.1:%d", ports[3])
	s.debugAddr = fmt.Sprintf("127.0.0.1:%d", ports[2])
	vars := env{"RUNTIME_ROOT": root, "RUNTIME_SUBDIRECTORY": "ratelimit", "RUNTIME_APPDIRECTORY": "config",
		"GRPC_HOST": "127.0.0.1", "GRPC_PORT": strconv.Itoa(ports[0]), "HOST": "127.0.0.1", "PORT": strconv.Itoa(ports[1]),
		"DEBUG_HOST": "127.0.0.1", "DEBUG_PORT": strconv.Itoa(ports[2]), "REDIS_SOCKET_TYPE": "tcp", "REDIS_URL": redisURL,
		"USE_STATSD": "false", "LOG_LEVEL": "info", "PROMETHEUS_ADDR": s.promAddr}
	for k, v := range settings {
		vars[k] = v
	}
	s.cmd = exec.Command(binary)
	s.cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range vars {
		s.cmd.Env = append(s.cmd.Env, k+"="+v)
	}
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.exitErr = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(s.stop)
	if err := s.waitListening(); err != nil {
		return s, err
	}
	s.grpcAddr = fmt.Sprintf("127.0.0.1:%d", ports[0])
	conn, err := grpc.NewClient(s.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return s, err
	}
	t.Cleanup(func() { _ = conn.Close() })
	s.client = pb.NewRateLimitServiceClient(conn)
	return s, nil
}

// waitListening waits until the HTTP port answers (whatever /healthcheck says).
func (s *rls) waitListening() error {
	deadline := time.Now().Add(readyWithin)
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("the service exited (%v):\n%s", s.exitErr, s.log.String())
		default:
		}
		resp, err := http.Get("http://" + s.httpAddr + "/healthcheck")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the service did not listen in %v:\n%s", readyWithin, s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends the process by its PID.
func (s *rls) stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			_ = s.cmd.Process.Kill()
		}
	}
}

// write puts a configuration file in place atomically (a rename), as a deployment does.
func (s *rls) write(t *testing.T, name, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(s.configDir), "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(s.configDir, name)); err != nil {
		t.Fatal(err)
	}
}

// waitLog waits until the service's log has text.
func (s *rls) waitLog(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(readyWithin)
	for !strings.Contains(s.log.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log within %v:\n%s", text, readyWithin, s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *rls) ask(t *testing.T, req *pb.RateLimitRequest) *pb.RateLimitResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := s.client.ShouldRateLimit(ctx, req)
	if err != nil {
		t.Fatalf("ShouldRateLimit: %v\n%s", err, s.log.String())
	}
	return resp
}
