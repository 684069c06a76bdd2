package winlimit

import (
	"context"
	"errors"
	"net"
	"reflect"
	"testing"
	"time"
)

// outcomeError is the error a spec outcome names ("ok": none).
func outcomeError(kind string) error {
	switch kind {
	case "ok":
		return nil
	case "connection":
		return &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	case "timeout":
		return context.DeadlineExceeded
	}
	return serverError(kind + " the server's text")
}

func TestSpecBreaker(t *testing.T) {
	var spec struct {
		Defaults     map[string]any `json:"defaults"`
		ErrorReplies []struct {
			Reply  string `json:"reply"`
			Counts bool   `json:"counts"`
		} `json:"error_replies"`
		CountedKinds []string         `json:"counted_kinds"`
		BadOptions   []map[string]any `json:"bad_options"`
		Cases        []struct {
			Name     string         `json:"name"`
			Options  map[string]any `json:"options"`
			Fallback bool           `json:"fallback"`
			Steps    []struct {
				AtMs        float64     `json:"at_ms"`
				Call        string      `json:"call"`
				Done        string      `json:"done"`
				Outcome     string      `json:"outcome"`
				Action      string      `json:"action"`
				State       string      `json:"state"`
				OpenUntil   *float64    `json:"open_until_ms"`
				Transitions [][2]string `json:"transitions"`
			} `json:"steps"`
		} `json:"cases"`
	}
	loadSpec(t, "breaker.json", &spec)
	want := map[string]any{"failures": float64(DefaultBreakerFailures), "open_ms": float64(DefaultBreakerOpenMs),
		"max_open_ms": float64(DefaultBreakerMaxOpen), "breaker": true}
	if !reflect.DeepEqual(spec.Defaults, want) {
		t.Errorf("defaults %v, not %v", want, spec.Defaults)
	}
	for _, r := range spec.ErrorReplies {
		if countsAsFailure(serverError(r.Reply)) != r.Counts {
			t.Errorf("%q counts: %v", r.Reply, !r.Counts)
		}
	}
	for _, kind := range spec.CountedKinds {
		if !countsAsFailure(outcomeError(kind)) {
			t.Errorf("%s does not count", kind)
		}
	}
	for _, bad := range spec.BadOptions {
		if opts, typed := breakerOptionsOf(bad); typed {
			if _, err := New(nil, opts...); err == nil {
				t.Errorf("%v accepted", bad)
			}
		}
	}
	for _, c := range spec.Cases {
		t.Run(c.Name, func(t *testing.T) {
			// The case's own options over the defaults the Go options have.
			opts, _ := breakerOptionsOf(c.Options)
			o, err := evaluate(opts)
			if err != nil {
				t.Fatal(err)
			}
			b := o.newBreaker()
			calls := map[string]admission{}
			for i, step := range c.Steps {
				var got []transition
				if step.Call != "" {
					a, tr := admitOrBypass(b, step.AtMs)
					calls[step.Call], got = a, tr
					action := "fail_fast"
					switch {
					case a.probe:
						action = "probe"
					case a.send:
						action = "send"
					case c.Fallback:
						action = "fallback"
					}
					if action != step.Action {
						t.Fatalf("step %d: %s, not %s", i, action, step.Action)
					}
				} else if b != nil {
					got = b.done(calls[step.Done], countsAsFailure(outcomeError(step.Outcome)), step.AtMs)
				}
				state, until := BreakerClosed, 0.0
				if b != nil {
					state, until = b.snapshot()
				}
				if state.String() != step.State {
					t.Fatalf("step %d: %s, not %s", i, state, step.State)
				}
				if step.OpenUntil != nil && until != *step.OpenUntil {
					t.Fatalf("step %d: open until %v, not %v", i, until, *step.OpenUntil)
				}
				wantTr := make([]transition, len(step.Transitions))
				for j, tr := range step.Transitions {
					wantTr[j] = transition{map[string]BreakerState{"closed": BreakerClosed, "half_open": BreakerHalfOpen, "open": BreakerOpen}[tr[0]], tr[1]}
				}
				if len(got) != len(wantTr) || (len(got) > 0 && !reflect.DeepEqual(got, wantTr)) {
					t.Fatalf("step %d: transitions %v, not %v", i, got, wantTr)
				}
			}
		})
	}
}

func admitOrBypass(b *breaker, now float64) (admission, []transition) {
	if b == nil {
		return admission{send: true}, nil
	}
	return b.admit(now)
}

// breakerOptionsOf are the Options of the spec's breaker options; false when a value is not
// of a type the Go options take (the compiler refuses it).
func breakerOptionsOf(options map[string]any) ([]Option, bool) {
	if on, ok := options["breaker"]; ok {
		enabled, isBool := on.(bool)
		if !isBool {
			return nil, false
		}
		if !enabled {
			return []Option{WithoutBreaker()}, true
		}
	}
	failures, open := DefaultBreakerFailures, DefaultBreakerOpenMs*time.Millisecond
	var opts []Option
	for k, v := range options {
		f, isNumber := v.(float64)
		switch k {
		case "failures":
			if !isNumber || f != float64(int(f)) {
				return nil, false
			}
			failures = int(f)
		case "open_ms", "max_open_ms":
			if !isNumber {
				return nil, false
			}
			d := time.Duration(f * float64(time.Millisecond))
			if k == "open_ms" {
				open = d
			} else {
				opts = append(opts, WithBreakerMaxOpen(d))
			}
		}
	}
	return append([]Option{WithBreaker(failures, open)}, opts...), true
}
