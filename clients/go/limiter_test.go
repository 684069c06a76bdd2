package winlimit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/clients/go/internal/redistest"
)

var ctx = context.Background()

func must(t *testing.T) func(Decision, error) Decision {
	return func(d Decision, err error) Decision {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
}

func TestSlideCountsEveryWindowAndRejectsOverTheLimit(t *testing.T) {
	eachEdition(t, func(t *testing.T, e *edition, rdb *redis.Client) {
		l := newLimiter(t, rdb)
		windows := []Window{{Length: time.Second, Limit: 2}, {Length: time.Hour, Limit: 100}}
		d := must(t)(l.Slide(ctx, "s", windows))
		if !d.Allowed || d.Backend != string(e.backend) || len(d.Policies) != 2 {
			t.Fatalf("first call: %+v", d)
		}
		must(t)(l.Slide(ctx, "s", windows))
		d = must(t)(l.Slide(ctx, "s", windows))
		if d.Allowed || d.Limit != 2 || d.Remaining != 0 || d.RetryAfter <= 0 || d.RetryAfter > time.Second {
			t.Fatalf("third call: %+v", d)
		}
		if p, _ := d.Policy(); p.Name != "winlimit-1s" {
			t.Fatalf("binding policy %+v", p)
		}
	})
}

func TestFixedTakesCostAlignAndBlock(t *testing.T) {
	eachEdition(t, func(t *testing.T, e *edition, rdb *redis.Client) {
		l := newLimiter(t, rdb)
		d := must(t)(l.Fixed(ctx, "f", time.Minute, 5, Cost(3), Align()))
		if !d.Allowed || d.Remaining != 2 || d.ResetAfter > time.Minute {
			t.Fatalf("%+v", d)
		}
		d = must(t)(l.Fixed(ctx, "f", time.Minute, 5, Cost(3), Align(), Block(time.Hour)))
		if d.Allowed || d.RetryAfter <= time.Minute {
			t.Fatalf("a blocked rejection lasts the block: %+v", d)
		}
	})
}

func TestGCRATakesBurstAndReportsTheBucketAsItsPolicy(t *testing.T) {
	eachEdition(t, func(t *testing.T, e *edition, rdb *redis.Client) {
		l := newLimiter(t, rdb)
		d := must(t)(l.GCRA(ctx, "g", time.Second, 10, Burst(20)))
		if !d.Allowed || d.Limit != 20 || d.Remaining != 19 {
			t.Fatalf("%+v", d)
		}
		if d.Policies[0] != (Policy{Name: "winlimit", Quota: 20, Window: 2 * time.Second}) {
			t.Fatalf("%+v", d.Policies)
		}
	})
}

func TestPeekRecordsNothingAndRefundGivesBack(t *testing.T) {
	eachEdition(t, func(t *testing.T, e *edition, rdb *redis.Client) {
		l := newLimiter(t, rdb)
		must(t)(l.Fixed(ctx, "p", time.Minute, 3, Cost(2)))
		d := must(t)(l.Fixed(ctx, "p", time.Minute, 3, Peek()))
		if d.Remaining != 1 {
			t.Fatalf("peek: %+v", d)
		}
		d = must(t)(l.Fixed(ctx, "p", time.Minute, 3, Refund(2)))
		if d.Remaining != 3 {
			t.Fatalf("refund: %+v", d)
		}
		d = must(t)(l.Slide(ctx, "q", []Window{{time.Minute, 3}}, Peek(), Bucket(time.Second)))
		if !d.Allowed || d.Remaining != 3 {
			t.Fatalf("slide peek: %+v", d)
		}
	})
}

func TestResetDeletesTheKey(t *testing.T) {
	eachEdition(t, func(t *testing.T, e *edition, rdb *redis.Client) {
		l := newLimiter(t, rdb)
		must(t)(l.Fixed(ctx, "r", time.Minute, 1))
		removed, err := l.Reset(ctx, "r")
		if err != nil || !removed {
			t.Fatal(removed, err)
		}
		if d := must(t)(l.Fixed(ctx, "r", time.Minute, 1)); !d.Allowed {
			t.Fatalf("after reset: %+v", d)
		}
		if removed, _ = l.Reset(ctx, "r-none"); removed {
			t.Fatal("a missing key was removed")
		}
	})
}

func TestTheServersOwnErrorsComeBackAsTheyAre(t *testing.T) {
	eachEdition(t, func(t *testing.T, e *edition, rdb *redis.Client) {
		_, err := newLimiter(t, rdb).Fixed(ctx, "e", time.Minute, -1)
		var re redis.Error
		if !errors.As(err, &re) {
			t.Fatalf("limit -1: %v", err)
		}
	})
}

func TestEveryBackendForcedWhereTheServerHasIt(t *testing.T) {
	rdb := editions[0].client(t)
	for _, b := range []Backend{Module, Functions, Scripts} {
		d := must(t)(newLimiter(t, rdb, WithBackend(b)).Fixed(ctx, "b", time.Minute, 3))
		if d.Backend != string(b) {
			t.Fatalf("%s answered by %s", b, d.Backend)
		}
	}
	d := must(t)(newLimiter(t, rdb, WithBackend(Functions)).Fixed(ctx, "b", time.Minute, 3))
	if d.Remaining != 0 {
		t.Fatalf("every backend counted on the same key: %+v", d)
	}
}

func TestModuleWhereItIsNotLoadedIsErrModuleNotLoaded(t *testing.T) {
	rdb := editions[1].client(t)
	_, err := newLimiter(t, rdb, WithBackend(Module)).Slide(ctx, "k", []Window{{time.Minute, 1}})
	if !errors.Is(err, ErrModuleNotLoaded) {
		t.Fatalf("%v", err)
	}
}

func TestArgumentErrorsComeBeforeAnythingIsSent(t *testing.T) {
	// Nothing listens there: an error that is not an ArgumentError would be a dial error.
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer rdb.Close()
	cases := map[string]func() error{
		"no windows":    func() error { _, err := newLimiter(t, rdb).Slide(ctx, "k", nil); return err },
		"sub-ms window": func() error { _, err := newLimiter(t, rdb).Fixed(ctx, "k", time.Microsecond, 1); return err },
		"align on slide": func() error {
			_, err := newLimiter(t, rdb).Slide(ctx, "k", []Window{{time.Second, 1}}, Align())
			return err
		},
		"bad name":       func() error { _, err := newLimiter(t, rdb).GCRA(ctx, "k", time.Second, 1, Name("zähler")); return err },
		"bad backend":    func() error { _, err := New(rdb, WithBackend("lua")); return err },
		"bad cache size": func() error { _, err := New(rdb, WithRejectionCache(0)); return err },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			var ae *ArgumentError
			if err := f(); !errors.As(err, &ae) {
				t.Fatalf("%v", err)
			}
		})
	}
}

func TestTheLibraryIsLoadedAgainAfterFunctionFlush(t *testing.T) {
	rdb := editions[1].client(t)
	l := newLimiter(t, rdb)
	must(t)(l.Fixed(ctx, "k", time.Minute, 3))
	if err := rdb.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	d := must(t)(l.Fixed(ctx, "k", time.Minute, 3))
	if d.Backend != "functions" || d.Remaining != 1 {
		t.Fatalf("%+v", d)
	}
}

func TestTheScriptIsLoadedAgainAfterScriptFlush(t *testing.T) {
	rdb := editions[2].client(t)
	l := newLimiter(t, rdb)
	must(t)(l.Fixed(ctx, "k", time.Minute, 3))
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if d := must(t)(l.Fixed(ctx, "k", time.Minute, 3)); d.Remaining != 1 {
		t.Fatalf("%+v", d)
	}
}

func loadedLibraryVersion(t *testing.T, rdb *redis.Client) string {
	t.Helper()
	v, err := rdb.Do(ctx, "FCALL_RO", "winlimit_version", 0).Text()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestAnOlderLibraryIsReplacedAndANewerOneKept(t *testing.T) {
	rdb := editions[1].client(t)
	if err := rdb.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	older := replaceVersion(ownLibrary.text, "0.0.1")
	if err := rdb.FunctionLoad(ctx, older).Err(); err != nil {
		t.Fatal(err)
	}
	must(t)(newLimiter(t, rdb).Fixed(ctx, "k", time.Minute, 3))
	if v := loadedLibraryVersion(t, rdb); v != ownLibrary.version {
		t.Fatalf("the older library stayed: %s", v)
	}
	newer := replaceVersion(ownLibrary.text, "999.0.0")
	if err := rdb.FunctionLoadReplace(ctx, newer).Err(); err != nil {
		t.Fatal(err)
	}
	must(t)(newLimiter(t, rdb).Fixed(ctx, "k", time.Minute, 3))
	if v := loadedLibraryVersion(t, rdb); v != "999.0.0" {
		t.Fatalf("the newer library was replaced: %s", v)
	}
}

func TestATimedOutCallIsNotSentTwice(t *testing.T) {
	rdb := editions[0].client(t)
	proxy, err := redistest.NewProxy(rdb.Options().Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	// The application's client as go-redis makes it by default: it retries read timeouts.
	// One connection, so each call below starts on the connection the proxy mutes.
	app := redis.NewClient(&redis.Options{Addr: proxy.Addr, ReadTimeout: 100 * time.Millisecond, MaxRetries: 3, PoolSize: 1})
	defer app.Close()

	// go-redis's own command: run, its reply lost, retried on a new connection, run again.
	if err := app.Incr(ctx, "n").Err(); err != nil {
		t.Fatal(err)
	}
	proxy.MuteOpen()
	if err := app.Incr(ctx, "n").Err(); err != nil {
		t.Fatal(err)
	}
	if n, _ := rdb.Get(ctx, "n").Int(); n != 3 {
		t.Fatalf("INCR ran %d times, not 1 + 2 (the timed-out one and its retry)", n)
	}

	// winlimit's: run once, its reply lost, and not sent again.
	l := newLimiter(t, app)
	must(t)(l.Fixed(ctx, "t", time.Minute, 100)) // the backend detected
	proxy.MuteOpen()
	if _, err := l.Fixed(ctx, "t", time.Minute, 100); err == nil {
		t.Fatal("a call answered through a muted connection")
	}
	d := must(t)(newLimiter(t, rdb).Fixed(ctx, "t", time.Minute, 100, Peek()))
	if d.Remaining != 98 {
		t.Fatalf("remaining %d: the timed-out call ran %d times", d.Remaining, 99-d.Remaining)
	}
}

func TestTheRejectionCacheAnswersARejectedLineUntilResetForgetsIt(t *testing.T) {
	rdb := editions[0].client(t)
	l := newLimiter(t, rdb, WithRejectionCache(DefaultCacheSize))
	must(t)(l.Fixed(ctx, "c", time.Minute, 1))
	if d := must(t)(l.Fixed(ctx, "c", time.Minute, 1)); d.Allowed || d.Cached {
		t.Fatalf("from Redis: %+v", d)
	}
	calls := commandCalls(t, rdb)
	d := must(t)(l.Fixed(ctx, "c", time.Minute, 1))
	if d.Allowed || !d.Cached || d.Backend != "module" || d.RetryAfter <= 0 {
		t.Fatalf("from the cache: %+v", d)
	}
	if commandCalls(t, rdb) != calls {
		t.Fatal("a cached answer reached Redis")
	}
	if _, err := l.Reset(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if d := must(t)(l.Fixed(ctx, "c", time.Minute, 1)); !d.Allowed || d.Cached {
		t.Fatalf("after Reset: %+v", d)
	}
}

// commandCalls is how many WINLIMIT.FIXED calls the server has run.
func commandCalls(t *testing.T, rdb *redis.Client) string {
	t.Helper()
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if strings.HasPrefix(line, "cmdstat_winlimit.fixed:") {
			return strings.Split(line, ",")[0]
		}
	}
	return ""
}

// callCount reads commandCalls's text.
func callCount(t *testing.T, calls string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscanf(calls, "cmdstat_winlimit.fixed:calls=%d", &n); err != nil {
		t.Fatal(err)
	}
	return n
}
