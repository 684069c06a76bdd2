// Package procs is what the benchmarks' Go drivers (bench/rls, bench/gateway) share about the
// processes they start: each is stopped by its own PID, and its CPU time read from /proc.
package procs

import (
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

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every Linux that
// matters here (it is fixed in the kernel's ABI for x86-64).
const clockTicks = 100

// Proc is a child process a driver started; it is stopped by its PID alone.
type Proc struct {
	Name string
	Cmd  *exec.Cmd
}

// Start runs args in dir with env (nil: this process's), its output in dir/<name>.log.
func Start(name string, env []string, dir string, args ...string) (*Proc, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env, cmd.Dir = env, dir
	logFile, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Proc{Name: name, Cmd: cmd}, nil
}

// Stop sends SIGTERM to the PID, then SIGKILL after 10 s (a JVM may take a few to stop).
func (p *Proc) Stop() {
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.Cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-done
	}
}

// CPU is the process's user and system time so far, from /proc/<pid>/stat.
func (p *Proc) CPU() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: the fields after it follow the last ')'.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, err1 := strconv.ParseInt(fields[11], 10, 64) // field 14 of the whole line
	stime, err2 := strconv.ParseInt(fields[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", p.Cmd.Process.Pid, b)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// FreePort is a loopback port free now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
