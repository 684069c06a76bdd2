package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/winlimit/winlimit/bench/internal/procs"
)

// startRedis starts a redis-server on a free loopback port, persistence off, and waits for PING.
func startRedis(name, binary, module, dir string) (*procs.Proc, int, error) {
	port, err := procs.FreePort()
	if err != nil {
		return nil, 0, err
	}
	args := []string{binary, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir}
	if module != "" {
		args = append(args, "--loadmodule", module)
	}
	p, err := procs.Start(name, nil, dir, args...)
	if err != nil {
		return nil, 0, err
	}
	if err := waitFor(name, func() bool { return ping(port) }); err != nil {
		p.Stop()
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

// loadavg is /proc/loadavg's first three fields.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
