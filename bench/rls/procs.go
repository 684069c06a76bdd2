package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every Linux that
// matters here (it is fixed in the kernel's ABI for x86-64).
const clockTicks = 100

// proc is a child process this program started; it is stopped by its PID alone.
type proc struct {
	name string
	cmd  *exec.Cmd
}

func start(name string, env []string, dir string, args ...string) (*proc, error) {
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
	return &proc{name: name, cmd: cmd}, nil
}

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
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
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64) // field 14 of the whole line
	stime, err2 := strconv.ParseInt(fields[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", p.cmd.Process.Pid, b)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// redisServer is a redis-server on a free loopback port, persistence off.
type redisServer struct {
	*proc
	addr string
	rdb  *redis.Client
}

func startRedis(name, binary, module, dir string) (*redisServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{binary, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir}
	if module != "" {
		args = append(args, "--loadmodule", module)
	}
	p, err := start(name, []string{"PATH=" + os.Getenv("PATH")}, dir, args...)
	if err != nil {
		return nil, err
	}
	r := &redisServer{proc: p, addr: "127.0.0.1:" + strconv.Itoa(port)}
	r.rdb = redis.NewClient(&redis.Options{Addr: r.addr})
	deadline := time.Now().Add(30 * time.Second)
	for r.rdb.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("%s did not answer PING in 30 s (log in %s)", name, dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return r, nil
}

// redisCPU is INFO's used_cpu_sys + used_cpu_user: the server's own CPU time.
func (r *redisServer) redisCPU(ctx context.Context) (time.Duration, error) {
	info, err := r.rdb.Info(ctx, "cpu").Result()
	if err != nil {
		return 0, err
	}
	var total float64
	for _, line := range strings.Split(info, "\r\n") {
		k, v, _ := strings.Cut(line, ":")
		if k == "used_cpu_sys" || k == "used_cpu_user" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("INFO cpu %s: %q", k, v)
			}
			total += f
		}
	}
	return time.Duration(total * float64(time.Second)), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
