package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/winlimit/winlimit/bench/internal/procs"
)

// proc is a process this driver started, stopped by its PID alone (bench/internal/procs).
type proc struct{ *procs.Proc }

func start(name string, env []string, dir string, args ...string) (*proc, error) {
	p, err := procs.Start(name, env, dir, args...)
	if err != nil {
		return nil, err
	}
	return &proc{p}, nil
}

func (p *proc) stop() { p.Stop() }

// cpu is the process's user and system time so far, from /proc/<pid>/stat.
func (p *proc) cpu() (time.Duration, error) { return p.CPU() }

var freePort = procs.FreePort

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
