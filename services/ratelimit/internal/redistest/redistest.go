// Package redistest starts real servers from the repository's .cache (scripts/fetch-servers.sh)
// on free loopback ports, and stops them by PID: the tests' Redis, never a mock.
//
// WINLIMIT_CACHE names the .cache folder (by default the nearest .cache above the working
// directory); WINLIMIT_MODULE the module to load (by default the release build's).
package redistest

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
	"time"
)

// ReadyTimeout bounds every readiness wait of the Go tests (a server answering PING, a
// cluster agreeing, a stopped server's port closing): a wait, not a claim about speed, so
// generous enough for a loaded 2-core machine running several suites at once.
const ReadyTimeout = 60 * time.Second

// Server is one redis-server child process.
type Server struct {
	Name string // the .cache folder, e.g. "redis-7.0"
	Port int
	dir  string
	args []string
	cmd  *exec.Cmd
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }

// repoFile finds rel in the nearest ancestor of the working directory that has it.
func repoFile(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
			return filepath.Join(dir, rel), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("redistest: no %s above the working directory", rel)
		}
		dir = parent
	}
}

// Bin gives the path of .cache/<name>/bin/<tool>.
func Bin(name, tool string) (string, error) {
	cache := os.Getenv("WINLIMIT_CACHE")
	if cache == "" {
		var err error
		if cache, err = repoFile(".cache"); err != nil {
			return "", err
		}
	}
	path := filepath.Join(cache, name, "bin", tool)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("redistest: %w (run scripts/fetch-servers.sh)", err)
	}
	return path, nil
}

// ModulePath is the winlimit module to load.
func ModulePath() (string, error) {
	if m := os.Getenv("WINLIMIT_MODULE"); m != "" {
		return m, nil
	}
	return repoFile("target/x86_64-unknown-linux-gnu/dist/libwinlimit.so")
}

// FreePort is a loopback port nothing listens on now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start runs .cache/<name>/bin/server on a free port, with the module when module is true,
// and extra arguments; it returns once the server answers PING.
func Start(name string, module bool, extra ...string) (*Server, error) {
	args := []string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}
	if module {
		path, err := ModulePath()
		if err != nil {
			return nil, err
		}
		args = append(args, "--loadmodule", path)
	}
	dir, err := os.MkdirTemp("", "winlimit-go-"+name+"-")
	if err != nil {
		return nil, err
	}
	s := &Server{Name: name, dir: dir, args: append(append(args, "--dir", dir), extra...)}
	for attempt := 0; ; attempt++ {
		port, err := FreePort()
		if err == nil {
			if err = s.startOn(port); err == nil {
				return s, nil
			}
		}
		if attempt == 4 {
			return nil, err
		}
	}
}

// Restart starts the server again on its own port (after Stop).
func (s *Server) Restart() error { return s.startOn(s.Port) }

func (s *Server) startOn(port int) error {
	bin, err := Bin(s.Name, "server")
	if err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(s.dir, "redis.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port)}, s.args...)...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = log, log, s.dir
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	s.cmd, s.Port = cmd, port
	deadline := time.Now().Add(ReadyTimeout)
	for {
		select {
		case <-exited:
			tail, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			return fmt.Errorf("redistest: %s exited at start-up:\n%s", s.Name, tail)
		default:
		}
		if ping(s.Addr()) == nil {
			go func() { <-exited }()
			return nil
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return fmt.Errorf("redistest: the server did not answer PING in %v", ReadyTimeout)
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
		return fmt.Errorf("redistest: PING answered %q", line)
	}
	return nil
}

// Stop ends the server by its PID and waits until its port is closed.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a paused server cannot exit
	_ = s.cmd.Process.Kill()
	for deadline := time.Now().Add(ReadyTimeout); ping(s.Addr()) == nil && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	s.cmd = nil
}

// Pause stops the process (SIGSTOP): connections open, no answers.
func (s *Server) Pause() error { return s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() error { return s.cmd.Process.Signal(syscall.SIGCONT) }

// Close stops the server and removes its folder.
func (s *Server) Close() {
	s.Stop()
	_ = os.RemoveAll(s.dir)
}
