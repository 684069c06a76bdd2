package winlimit

import (
	"testing"
	"time"
)

func TestSpecDecisionsOfTheMemoryLimiter(t *testing.T) {
	var spec struct {
		Cases []struct {
			Name  string `json:"name"`
			Calls []struct {
				Now   int64      `json:"now"`
				Args  []string   `json:"args"`
				Reply *specReply `json:"reply"`
				Error *string    `json:"error"`
			} `json:"calls"`
		} `json:"cases"`
	}
	loadSpec(t, "decisions.json", &spec)
	for _, c := range spec.Cases {
		t.Run(c.Name, func(t *testing.T) {
			now := int64(0)
			m := NewMemory(WithClock(func() int64 { return now }))
			for i, step := range c.Calls {
				now = step.Now
				got, err := m.execute(step.Args[0], "key", step.Args[1:])
				switch {
				case step.Error != nil && (err == nil || err.Error() != *step.Error):
					t.Fatalf("call %d %v at %d: %v %v, not the error %q", i, step.Args, now, got, err, *step.Error)
				case step.Reply != nil && (err != nil || got != *step.Reply):
					t.Fatalf("call %d %v at %d: %v %v, not %v", i, step.Args, now, got, err, *step.Reply)
				}
			}
		})
	}
}

func TestTheMemoryLimiterHasTheLimitersMethods(t *testing.T) {
	now := int64(1_700_000_000_000)
	m := NewMemory(WithClock(func() int64 { return now }), WithMemoryOptions(WithName("api")))
	d, err := m.Fixed(ctx, "k", time.Minute, 1)
	if err != nil || !d.Allowed || d.Backend != "memory" || d.Policies[0].Name != "api" {
		t.Fatalf("%+v %v", d, err)
	}
	if d, _ = m.Fixed(ctx, "k", time.Minute, 1); d.Allowed || d.RetryAfter != time.Minute {
		t.Fatalf("%+v", d)
	}
	if removed, _ := m.Reset(ctx, "k"); !removed {
		t.Fatal("Reset held nothing")
	}
	if d, _ = m.GCRA(ctx, "g", time.Second, 10, Burst(2)); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("%+v", d)
	}
	if d, _ = m.Slide(ctx, "s", []Window{{time.Second, 1}}, Bucket(100*time.Millisecond)); !d.Allowed {
		t.Fatalf("%+v", d)
	}
	if _, err = m.Fixed(ctx, "s", time.Second, 1); err == nil || err.Error() != (memWrongType{}).Error() {
		t.Fatalf("a slide key used by Fixed: %v", err)
	}
}

func TestTheMemoryLimiterHoldsAtMostMaxKeys(t *testing.T) {
	m := NewMemory(WithMaxKeys(2))
	for _, k := range []string{"a", "b", "c"} {
		if _, err := m.Fixed(ctx, k, time.Minute, 1); err != nil {
			t.Fatal(err)
		}
	}
	if removed, _ := m.Reset(ctx, "a"); removed {
		t.Fatal("the least recently used key was kept")
	}
}
