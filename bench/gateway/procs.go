package main

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

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times (fixed at 100 in x86-64's ABI).
const clockTicks = 100

// proc is a child process this program started; it is stopped by its PID alone.
type proc struct {
	name string
	cmd  *exec.Cmd
}

func start(name, dir string, args ...string) (*proc, error) {
	cmd := exec.Command(args[0], args[1:]...)
	logFile, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &proc{name: name, cmd: cmd}, nil
}

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// cpu is the process's user and system time so far, from /proc/<pid>/stat.
func (p *proc) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: the fields after it follow the last ')'.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, err1 := strconv.ParseInt(fields[11], 10, 64) // field 14 of the whole line
	stime, err2 := strconv.ParseInt(fields[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", p.cmd.Process.Pid, b)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// startRedis starts a redis-server on a free loopback port, persistence off, and waits for PING.
func startRedis(name, binary, module, dir string) (*proc, int, error) {
	port, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	args := []string{binary, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir}
	if module != "" {
		args = append(args, "--loadmodule", module)
	}
	p, err := start(name, dir, args...)
	if err != nil {
		return nil, 0, err
	}
	if err := waitFor(name, func() bool { return ping(port) }); err != nil {
		p.stop()
		return nil, 0, err
	}
	return p, port, nil
}

func ping(port int) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

// readyTimeout is generous: a JVM starting on this shared 2-core machine may take a minute.
const readyTimeout = 120 * time.Second

func waitFor(name string, ready func() bool) error {
	deadline := time.Now().Add(readyTimeout)
	for !ready() {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was not ready in %s", name, readyTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// loadavg is /proc/loadavg's first three fields.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
