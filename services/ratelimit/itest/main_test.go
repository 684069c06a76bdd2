package itest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// edition is a kind of Redis, started once for the whole run on first use.
type edition struct {
	name   string
	server string
	module bool

	once sync.Once
	srv  *redisServer
	err  error
}

var (
	moduleEdition    = &edition{name: "module", server: "redis-7.0", module: true}
	functionsEdition = &edition{name: "functions-7.0", server: "redis-7.0"}
	scriptsEdition   = &edition{name: "scripts-6.2", server: "redis-6.2"}
	editions         = []*edition{moduleEdition, functionsEdition, scriptsEdition}
)

// url starts the edition's server once and flushes it, so each test starts from nothing.
func (e *edition) url(t *testing.T) string {
	t.Helper()
	e.once.Do(func() { e.srv, e.err = startRedis(e.server, e.module) })
	if e.err != nil {
		t.Fatalf("%s: %v", e.name, e.err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: e.srv.Addr()})
	defer rdb.Close()
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	return e.srv.Addr()
}

// eachEdition runs f once per edition, as a subtest named after it.
func eachEdition(t *testing.T, f func(t *testing.T, redisURL string)) {
	for _, e := range editions {
		t.Run(e.name, func(t *testing.T) { f(t, e.url(t)) })
	}
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "winlimit-rls-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "winlimit-ratelimit")
	build := exec.Command("go", "build", "-o", binary, "../cmd/winlimit-ratelimit")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building winlimit-ratelimit:", err)
		os.Exit(1)
	}
	code := m.Run()
	for _, e := range editions {
		if e.srv != nil {
			e.srv.Close()
		}
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
