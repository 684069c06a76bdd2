package winlimit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Backend chooses which edition of winlimit answers.
type Backend string

// The backends: Auto chooses per server (per cluster node) the module where it is loaded,
// else the Functions library where the server has Functions, else the scripts.
const (
	Auto      Backend = "auto"
	Module    Backend = "module"
	Functions Backend = "functions"
	Scripts   Backend = "scripts"
)

// processor is what a command is sent through: a go-redis client of any kind.
type processor interface {
	Process(ctx context.Context, cmd redis.Cmder) error
}

// noRetry is a command go-redis must not send twice: after a timeout the server may have
// counted it, and a replay would count it again. Only a definite "not run" reply
// (NOSCRIPT, function not found) makes winlimit send a call again.
type noRetry struct{ *redis.Cmd }

// NoRetry tells go-redis not to replay the command.
func (noRetry) NoRetry() bool { return true }

// send sends args through p, with the key at keyPos (0: keyless), never replayed.
func send(ctx context.Context, p processor, keyPos int8, args ...any) (any, error) {
	cmd := redis.NewCmd(ctx, args...)
	if keyPos > 0 {
		cmd.SetFirstKeyPos(keyPos)
	}
	err := p.Process(ctx, noRetry{cmd})
	if err != nil {
		return nil, err
	}
	return cmd.Val(), nil
}

// node is what is known of one server: its backend and whether its library was checked.
type node struct {
	breaker *breaker // nil: off
	// backend is read on every call and written once detected (or again after an unload):
	// an atomic load keeps the call path free of the mutex.
	backend        atomic.Pointer[Backend] // nil until detected
	mu             sync.Mutex              // guards libraryChecked
	libraryChecked bool
}

type nodes struct {
	mu      sync.Mutex
	choice  Backend
	byName  map[string]*node
	breaker func() *breaker
}

func (n *nodes) get(name string) *node {
	n.mu.Lock()
	defer n.mu.Unlock()
	got, ok := n.byName[name]
	if !ok {
		got = &node{breaker: n.breaker()}
		if n.choice != Auto {
			got.setBackend(n.choice)
		}
		n.byName[name] = got
	}
	return got
}

// isServerError reports a Redis error reply whose text contains text (case-insensitive).
func isServerError(err error, text string) bool {
	if err == nil {
		return false // the common case, without errors.As's allocation
	}
	var re redis.Error
	return errors.As(err, &re) && strings.Contains(strings.ToLower(re.Error()), text)
}

func isNoPerm(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasPrefix(re.Error(), "NOPERM")
}

// translate turns an unknown-command error into a ModuleNotLoadedError.
func translate(err error) error {
	if isServerError(err, "unknown command") {
		return &ModuleNotLoadedError{Server: err}
	}
	return err
}

// functionName is the library's name for a module command: winlimit_slide_ro.
func functionName(command string) string {
	return strings.ReplaceAll(strings.ToLower(command), ".", "_")
}

// route is where one call goes: the client (routed by key) and the server serving the key.
type route struct {
	client processor // the application's client
	server processor // the server (cluster node, ring shard) serving the key
	node   *node
}

// answer has the call answered by the node's backend: the reply and the backend.
func (l *Limiter) answer(ctx context.Context, c *call, r route) (any, Backend, error) {
	backend := r.node.current()
	if backend == "" {
		var err error
		if backend, err = l.detect(ctx, r); err != nil {
			return nil, "", err
		}
	}
	if backend == Module {
		reply, err := send(ctx, r.client, 1, c.args...)
		if err == nil || l.nodes.choice != Auto || !isServerError(err, "unknown command") {
			return reply, Module, translate(err)
		}
		// The module was unloaded: choose again.
		if backend, _ = l.detect(ctx, r); backend == Module {
			return nil, "", translate(err)
		}
	}
	if backend == Functions {
		return l.fcall(ctx, c, r)
	}
	reply, err := evalsha(ctx, c, r)
	return reply, Scripts, err
}

// detect chooses "module" where COMMAND INFO knows WINLIMIT.SLIDE, else "functions" where it
// knows FCALL, else "scripts" (not MODULE LIST: managed services refuse it).
func (l *Limiter) detect(ctx context.Context, r route) (Backend, error) {
	reply, err := send(ctx, r.server, 0, "COMMAND", "INFO", "WINLIMIT.SLIDE", "FCALL")
	if err != nil {
		if isNoPerm(err) {
			return "", &permissionError{err, "+command|info", `backend "auto" asks COMMAND INFO, which`}
		}
		return "", err
	}
	infos, ok := reply.([]any)
	if !ok || len(infos) != 2 {
		return "", fmt.Errorf("%w: COMMAND INFO answered %v", ErrInvalidReply, reply)
	}
	backend := Scripts
	if infos[0] != nil {
		backend = Module
	} else if infos[1] != nil {
		backend = Functions
	}
	r.node.setBackend(backend)
	return backend, nil
}

func (l *Limiter) fcall(ctx context.Context, c *call, r route) (any, Backend, error) {
	if err := l.ensureLibrary(ctx, r, false); err != nil {
		return nil, "", err
	}
	if b := r.node.current(); b != Functions {
		reply, err := evalsha(ctx, c, r)
		return reply, Scripts, err
	}
	verb := "FCALL"
	if c.peek {
		verb = "FCALL_RO"
	}
	args := make([]any, 0, len(c.args)+2)
	args = append(args, verb, functionName(c.args[0].(string)), 1)
	args = append(args, c.args[1:]...)
	reply, err := send(ctx, r.client, 3, args...)
	if !isServerError(err, "function not found") {
		return reply, Functions, err
	}
	// FUNCTION FLUSH, or an older library without this function: load it, then once more.
	if err := l.ensureLibrary(ctx, r, true); err != nil {
		return nil, "", err
	}
	if r.node.current() != Functions {
		reply, err := evalsha(ctx, c, r)
		return reply, Scripts, err
	}
	reply, err = send(ctx, r.client, 3, args...)
	return reply, Functions, err
}

// current is the node's backend, "" until detected.
func (n *node) current() Backend {
	if b := n.backend.Load(); b != nil {
		return *b
	}
	return ""
}

func (n *node) setBackend(b Backend) { n.backend.Store(&b) }

// ensureLibrary loads the library where it is missing or older, never over a newer one;
// where the user may not load it, "auto" turns to the scripts.
func (l *Limiter) ensureLibrary(ctx context.Context, r route, again bool) error {
	r.node.mu.Lock()
	checked := r.node.libraryChecked
	r.node.libraryChecked = true
	r.node.mu.Unlock()
	if checked && !again {
		return nil
	}
	version, err := loadedVersion(ctx, r.server)
	if err != nil || (version != "" && versionAtLeast(version, ownLibrary.version)) {
		return err
	}
	err = loadLibrary(ctx, r.server, version != "")
	if isNoPerm(err) {
		if l.nodes.choice == Auto {
			r.node.setBackend(Scripts)
			return nil
		}
		return &permissionError{err, "+function|load", `the "functions" backend loads the library, which`}
	}
	return err
}

// loadedVersion is winlimit_version of the library loaded, or "" where there is none.
func loadedVersion(ctx context.Context, server processor) (string, error) {
	reply, err := send(ctx, server, 0, "FCALL_RO", "winlimit_version", 0)
	if isServerError(err, "function not found") {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	v, _ := reply.(string)
	return v, nil
}

func loadLibrary(ctx context.Context, server processor, replace bool) error {
	args := []any{"FUNCTION", "LOAD", ownLibrary.text}
	if replace {
		args = []any{"FUNCTION", "LOAD", "REPLACE", ownLibrary.text}
	}
	_, err := send(ctx, server, 0, args...)
	if err == nil || replace || isNoPerm(err) || !isServerError(err, "already exists") {
		return err
	}
	// Loaded by another client since we looked: replaced only if that one is older too.
	version, err := loadedVersion(ctx, server)
	if err != nil || (version != "" && versionAtLeast(version, ownLibrary.version)) {
		return err
	}
	_, err = send(ctx, server, 0, "FUNCTION", "LOAD", "REPLACE", ownLibrary.text)
	return err
}

func evalsha(ctx context.Context, c *call, r route) (any, error) {
	args := make([]any, 0, len(c.args)+4)
	args = append(args, "EVALSHA", ownLibrary.sha, 1, c.args[1], functionName(c.args[0].(string)))
	args = append(args, c.args[2:]...)
	reply, err := send(ctx, r.client, 3, args...)
	if !isServerError(err, "noscript") {
		return reply, err
	}
	if _, err := send(ctx, r.server, 0, "SCRIPT", "LOAD", ownLibrary.script); err != nil {
		if isNoPerm(err) {
			return nil, &permissionError{err, "+script|load", `the "scripts" backend loads its script, which`}
		}
		return nil, err
	}
	return send(ctx, r.client, 3, args...)
}
