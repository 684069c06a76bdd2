package itest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readyWithin is every readiness wait of this suite: a loaded 2-core machine starts a
// server slowly, and a wait that is too short fails a test that would pass.
const readyWithin = 60 * time.Second

// redisServer is one redis-server child process on a free loopback port, stopped by PID.
type redisServer struct {
	name string
	port int
	dir  string
	args []string
	cmd  *exec.Cmd
}

func (s *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// cacheDir is WINLIMIT_CACHE, or the repository's .cache (scripts/fetch-servers.sh).
func cacheDir() string {
	if c := os.Getenv("WINLIMIT_CACHE"); c != "" {
		return c
	}
	abs, _ := filepath.Abs("../../../.cache")
	return abs
}

func modulePath() (string, error) {
	if m := os.Getenv("WINLIMIT_MODULE"); m != "" {
		return m, nil
	}
	abs, _ := filepath.Abs("../../../target/x86_64-unknown-linux-gnu/dist/libwinlimit.so")
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("no module: set WINLIMIT_MODULE or run make release-so (%w)", err)
	}
	return abs, nil
}

func bin(name, tool string) string { return filepath.Join(cacheDir(), name, "bin", tool) }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startRedis runs .cache/<name>/bin/server, with the module when module is true.
func startRedis(name string, module bool, extra ...string) (*redisServer, error) {
	args := []string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}
	if module {
		path, err := modulePath()
		if err != nil {
			return nil, err
		}
		args = append(args, "--loadmodule", path)
	}
	dir, err := os.MkdirTemp("", "winlimit-rls-"+name+"-")
	if err != nil {
		return nil, err
	}
	s := &redisServer{name: name, dir: dir, args: append(append(args, "--dir", dir), extra...)}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		if lastErr = s.startOn(port); lastErr == nil {
			return s, nil
		}
	}
	return nil, lastErr
}

func (s *redisServer) startOn(port int) error {
	log, err := os.OpenFile(filepath.Join(s.dir, "redis.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(bin(s.name, "server"), append([]string{"--port", strconv.Itoa(port)}, s.args...)...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = log, log, s.dir
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	s.cmd, s.port = cmd, port
	deadline := time.Now().Add(readyWithin)
	for {
		select {
		case <-exited:
			tail, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			return fmt.Errorf("%s exited at start-up:\n%s", s.name, tail)
		default:
		}
		if ping(s.addr()) == nil {
			return nil
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return fmt.Errorf("%s did not answer PING in %v", s.name, readyWithin)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// kill ends the server by its PID (a paused one is continued first: it cannot exit).
func (s *redisServer) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT)
	_ = s.cmd.Process.Kill()
	for i := 0; i < 500 && ping(s.addr()) == nil; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	s.cmd = nil
}

func (s *redisServer) restart() error { return s.startOn(s.port) }
func (s *redisServer) pause() error   { return s.cmd.Process.Signal(syscall.SIGSTOP) }
func (s *redisServer) resume() error  { return s.cmd.Process.Signal(syscall.SIGCONT) }

func (s *redisServer) close() {
	s.kill()
	_ = os.RemoveAll(s.dir)
}

// startCluster makes n primaries into a cluster with the cli's --cluster create.
func startCluster(t testing.TB, name string, n int) []*redisServer {
	var nodes []*redisServer
	var addrs []string
	for i := 0; i < n; i++ {
		bus, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		s, err := startRedis(name, true, "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(bus), "--cluster-node-timeout", "5000")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.close)
		nodes, addrs = append(nodes, s), append(addrs, s.addr())
	}
	args := append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(bin(name, "cli"), args...).CombinedOutput(); err != nil {
		t.Fatalf("cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(readyWithin)
	for _, s := range nodes {
		for {
			out, err := exec.Command(bin(name, "cli"), "-p", strconv.Itoa(s.port), "cluster", "info").Output()
			if err == nil && strings.Contains(string(out), "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the cluster was not ready in %v", readyWithin)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nodes
}
