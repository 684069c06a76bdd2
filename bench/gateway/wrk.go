package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:embed wrk.lua
var wrkScript []byte

// wrkThreads: one per core of this 2-core machine, as wrk's own README runs it.
const wrkThreads = 2

// writeWrkScript writes wrk.lua into dir, once per run, and returns its path.
func writeWrkScript(dir string) (string, error) {
	script := filepath.Join(dir, "wrk.lua")
	return script, os.WriteFile(script, wrkScript, 0o644)
}

// wrkSummary is the line wrk.lua's done() prints.
type wrkSummary struct {
	Requests     int   `json:"requests"`
	DurationUS   int64 `json:"duration_us"`
	P50US        int64 `json:"p50_us"`
	P99US        int64 `json:"p99_us"`
	Non2xx       int   `json:"non_2xx"`
	SocketErrors int   `json:"socket_errors"`
}

// loadWithWrk is load's twin on wrk (a C load generator that costs the machine far less CPU
// per request than Go's HTTP client): the same connections, keys and duration; any answer but
// 200, or a socket error, fails the round. script is wrk.lua as writeWrkScript wrote it; cpu is
// what wrk itself spent.
func loadWithWrk(wrk, script, url string, conns, keys int, d time.Duration) (result, time.Duration, error) {
	secs := strconv.Itoa(int(d.Round(time.Second) / time.Second))
	cmd := exec.Command(wrk, "-t"+strconv.Itoa(wrkThreads), "-c"+strconv.Itoa(conns), "-d"+secs+"s",
		"--timeout", "10s", "-s", script, url)
	cmd.Env = append(os.Environ(), "KEYS="+strconv.Itoa(keys), "THREADS="+strconv.Itoa(wrkThreads))
	out, err := cmd.Output()
	if err != nil {
		return result{}, 0, fmt.Errorf("wrk %s: %w\n%s", url, err, out)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var s wrkSummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
		return result{}, 0, fmt.Errorf("wrk %s: no summary line: %w\n%s", url, err, out)
	}
	if s.Non2xx > 0 || s.SocketErrors > 0 || s.Requests == 0 {
		return result{}, 0, fmt.Errorf("wrk %s: %d answers not 2xx, %d socket errors, %d requests", url, s.Non2xx, s.SocketErrors, s.Requests)
	}
	return result{
		requests: s.Requests,
		elapsed:  time.Duration(s.DurationUS) * time.Microsecond,
		p50:      time.Duration(s.P50US) * time.Microsecond,
		p99:      time.Duration(s.P99US) * time.Microsecond,
	}, cpu, nil
}
