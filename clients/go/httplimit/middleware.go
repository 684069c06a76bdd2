package httplimit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"time"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/internal/fields"
	"github.com/winlimit/winlimit/clients/go/internal/hooks"
)

// The bodies of the middleware's own answers.
const (
	TooManyRequestsBody = "Too Many Requests"
	UnavailableBody     = "rate limiter unavailable"
)

// Check decides one request: a limiter call on key (the prefix included). It takes the
// request, so limits can be chosen per request (by route, by plan, by cost).
type Check func(ctx context.Context, l winlimit.Deciding, key string, r *http.Request) (winlimit.Decision, error)

// KeyFunc gives a request's key; "" leaves the request unlimited. An error is the app's 500.
type KeyFunc func(r *http.Request) (string, error)

// Count says which requests use up the limit.
type Count string

// What Count takes: every request (the default), only failures or only successes; the
// others are given back (REFUND) once the response's status is known.
const (
	CountAll       Count = "all"
	CountFailures  Count = "failures"
	CountSuccesses Count = "successes"
)

// Middleware limits requests by a Check on a limiter.
type Middleware struct {
	limiter   winlimit.Deciding
	check     Check
	o         options
	mu        sync.Mutex
	shadowLog *shadowLog
	shadowed  int64
}

// New makes a middleware; an option out of range is an error here, before any request.
func New(limiter winlimit.Deciding, check Check, opts ...Option) (*Middleware, error) {
	if limiter == nil || reflect.ValueOf(limiter).IsNil() || check == nil {
		return nil, errors.New("httplimit: a limiter and a check are needed")
	}
	o := defaults()
	for _, opt := range opts {
		opt(&o)
	}
	if o.err != nil {
		return nil, o.err
	}
	return &Middleware{limiter: limiter, check: check, o: o, shadowLog: newShadowLog(o.shadowLogKeys, o.clock)}, nil
}

// ShadowRejections is how many rejections shadow mode has let through.
func (m *Middleware) ShadowRejections() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.shadowed
}

// Handler limits the requests to next.
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.serve(w, r, next)
	})
}

func (m *Middleware) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	key, err := m.o.key(r)
	if err != nil {
		m.o.onError(w, r, err)
		return
	}
	if key == "" {
		next.ServeHTTP(w, r)
		return
	}
	key = m.o.prefix + key
	var limiter winlimit.Deciding = m.limiter
	var recorder hooks.Recorder
	if m.o.count != CountAll || m.o.block != nil {
		var wrapped any
		wrapped, recorder = hooks.NewRecorder(m.limiter, m.o.block)
		limiter = wrapped.(winlimit.Deciding)
	}
	ctx := r.Context()
	if m.o.shadow {
		ctx = hooks.WithShadow(ctx) // the limiter reports its rejections as shadow_rejected
	}
	d, err := m.check(ctx, limiter, key, r)
	if err != nil {
		m.failed(w, r, next, key, err)
		return
	}
	decided, err := d.StyleHeaders(m.o.style, time.Now())
	if err != nil {
		m.failed(w, r, next, key, err)
		return
	}
	if !d.Allowed && !m.o.shadow {
		fields.Merge(w.Header(), decided, string(m.o.style))
		m.o.onReject.ServeHTTP(w, r)
		return
	}
	if !d.Allowed {
		m.shadow(key, &d, decided)
	}
	fields.Merge(w.Header(), decided, string(m.o.style))
	m.pass(w, r, next, recorder, d)
}

// pass serves the request and, counting by outcome, gives back the units of one that does
// not count.
func (m *Middleware) pass(w http.ResponseWriter, r *http.Request, next http.Handler, rec hooks.Recorder, d winlimit.Decision) {
	if rec == nil || m.o.count == CountAll || !d.Allowed {
		next.ServeHTTP(w, r)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	completed := false
	defer func() {
		// A handler that panics is a failure (status 0), and the panic goes on.
		status := sw.status
		if !completed {
			status = 0
		} else if status == 0 {
			status = http.StatusOK
		}
		failed := status == 0 || m.o.isFailure(status)
		if failed == (m.o.count == CountSuccesses) {
			if err := rec.Refund(context.WithoutCancel(r.Context())); err != nil {
				m.o.logger.Error(fmt.Sprintf("winlimit: refunding a request that does not count failed: %v", err))
			}
		}
	}()
	next.ServeHTTP(sw, r)
	completed = true
}

func (m *Middleware) shadow(key string, d *winlimit.Decision, decided http.Header) {
	decided.Del("Retry-After")
	full, _ := d.Headers()
	m.mu.Lock()
	m.shadowed++
	warning := m.shadowLog.warning(key, d, full.Get("RateLimit"))
	m.mu.Unlock()
	if warning != "" {
		m.o.logger.Warn(warning)
	}
}

// failed answers a request whose check failed: a Redis failure is 503 (or the app's answer
// with FailOpen) and one error line; any other error is the app's 500.
func (m *Middleware) failed(w http.ResponseWriter, r *http.Request, next http.Handler, key string, err error) {
	if !winlimit.IsRedisError(err) {
		m.o.onError(w, r, err) // the application's error, not the limiter's: not logged here
		return
	}
	mode := "closed"
	if m.o.failOpen {
		mode = "open"
	}
	m.o.logger.Error(fmt.Sprintf("winlimit: rate limit check for %s failed, failing %s: %s: %v", quoted(key), mode, errorName(err), err))
	if m.o.failOpen {
		next.ServeHTTP(w, r)
		return
	}
	http.Error(w, UnavailableBody, http.StatusServiceUnavailable)
}

func errorName(err error) string {
	var te *winlimit.TimeoutError
	if errors.As(err, &te) {
		return "TimeoutError"
	}
	return fmt.Sprintf("%T", err)
}
