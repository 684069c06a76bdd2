package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc/status"
)

// hungResult is what one service's callers saw while its Redis gave no answer: each call's
// time and gRPC code, in order.
type hungResult struct {
	target string
	took   []time.Duration
	codes  []string
}

// hung stops the Redis the module's service and upstream share (SIGSTOP, by its PID), asks
// each of them `calls` times, one call after another, each with the client's `deadline`,
// then lets Redis go on (SIGCONT) and waits until each answers OK again.
func hung(ctx context.Context, targets []target, calls int, deadline time.Duration) ([]hungResult, error) {
	var asked []target
	for _, t := range targets {
		if t.name == nameModule || t.name == nameUpstream {
			asked = append(asked, t)
		}
	}
	if len(asked) == 0 || calls == 0 {
		return nil, nil
	}
	pid := asked[0].svc.redis.Cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return nil, err
	}
	var results []hungResult
	for _, t := range asked {
		r := hungResult{target: t.name}
		for i := range calls {
			call, cancel := context.WithTimeout(ctx, deadline)
			began := time.Now()
			_, err := t.svc.rpc[0].ShouldRateLimit(call, request(t.domain, i))
			cancel()
			r.took = append(r.took, time.Since(began))
			r.codes = append(r.codes, status.Code(err).String())
		}
		results = append(results, r)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		return results, err
	}
	for _, t := range asked {
		if err := t.svc.waitReady(); err != nil {
			return results, fmt.Errorf("%s after SIGCONT: %w", t.name, err)
		}
	}
	return results, nil
}

// writeHung is the report's section on a hung Redis: per service, its codes and how long
// its callers waited, before and after the first answer that came at once (the breaker open).
func writeHung(b *strings.Builder, o options, results []hungResult) {
	if len(results) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Redis hung (SIGSTOP by PID)\n\n")
	fmt.Fprintf(b, "After the rounds, the Redis both services share is stopped with SIGSTOP and each service is\n")
	fmt.Fprintf(b, "asked %d times, one call after another, each with a client deadline of %v; both run with\n", o.hungCalls, o.hungDeadline)
	fmt.Fprintf(b, "`REDIS_TIMEOUT=%v`. Then SIGCONT, and each answers OK again. An answer is fast when it\n", redisTimeout)
	fmt.Fprintf(b, "comes within a tenth of REDIS_TIMEOUT: winlimit's breaker is open and nothing is sent.\n\n")
	fmt.Fprintf(b, "| target | codes | calls before the first fast answer | fast answers: median | slowest |\n|---|---|---:|---:|---:|\n")
	bound := ""
	for _, r := range results {
		first, fast := -1, []time.Duration{}
		for i, d := range r.took {
			if d < redisTimeout/10 {
				if first < 0 {
					first = i
				}
				fast = append(fast, d)
			}
		}
		before, median, slowest := fmt.Sprint(len(r.took)), "—", "—"
		if first >= 0 {
			slices.Sort(fast)
			before, median, slowest = fmt.Sprint(first), ms(fast[len(fast)/2]), ms(fast[len(fast)-1])
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", r.target, countCodes(r.codes), before, median, slowest)
		if r.target == nameModule && first >= 0 {
			verdict := "met"
			if fast[len(fast)-1] > 5*time.Millisecond {
				verdict = "missed"
			}
			bound = fmt.Sprintf("\nIssue 46's bound, each answer within 5 ms once the breaker is open: **%s** (slowest %s).\n", verdict, slowest)
		}
	}
	b.WriteString(bound)
}

// countCodes is "Unavailable ×9, DeadlineExceeded ×3", in the order each code first came.
func countCodes(codes []string) string {
	var order []string
	n := map[string]int{}
	for _, c := range codes {
		if n[c] == 0 {
			order = append(order, c)
		}
		n[c]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = fmt.Sprintf("%s ×%d", c, n[c])
	}
	return strings.Join(parts, ", ")
}
