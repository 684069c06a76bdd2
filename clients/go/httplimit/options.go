package httplimit

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/internal/ipkey"
)

// Option configures a Middleware.
type Option func(*options)

type options struct {
	key           KeyFunc
	prefix        string
	style         winlimit.HeaderStyle
	failOpen      bool
	shadow        bool
	shadowLogKeys int
	count         Count
	isFailure     func(status int) bool
	block         *time.Duration
	onReject      http.Handler
	onError       func(w http.ResponseWriter, r *http.Request, err error)
	logger        *slog.Logger
	clock         func() float64
	err           error
}

func defaults() options {
	return options{
		key: AddressKey(winlimit.DefaultIPv6Subnet), prefix: winlimit.DefaultPrefix, style: winlimit.Draft11,
		shadowLogKeys: winlimit.DefaultShadowLogKeys, count: CountAll, isFailure: StatusFailed,
		onReject: http.HandlerFunc(TooManyRequests), onError: InternalError, logger: slog.Default(), clock: monotonicMs,
	}
}

func (o *options) fail(err error) {
	if o.err == nil {
		o.err = err
	}
}

// StatusFailed is the default failure: a status of 400 or more.
func StatusFailed(status int) bool { return status >= 400 }

// TooManyRequests is the default rejection: 429 with its text.
func TooManyRequests(w http.ResponseWriter, _ *http.Request) {
	http.Error(w, TooManyRequestsBody, http.StatusTooManyRequests)
}

// InternalError is the default answer to an error of the key function or the check that is
// not Redis's (a bug of the application's): 500, and the error to OnError to log it.
func InternalError(w http.ResponseWriter, _ *http.Request, _ error) {
	http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
}

// OnError answers a request whose key function or check failed with an error that is not
// Redis's (InternalError by default: 500, nothing logged by the middleware).
func OnError(f func(w http.ResponseWriter, r *http.Request, err error)) Option {
	return func(o *options) { o.onError = f }
}

// AddressKey keys a request by its connection's address (RemoteAddr): an IPv4 address
// itself, an IPv6 one by its network of ipv6Subnet bits ("2001:db8:1:2::/64"). Headers such as
// X-Forwarded-For are not read: behind a proxy, pass a KeyFunc that trusts it.
func AddressKey(ipv6Subnet int) KeyFunc {
	return func(r *http.Request) (string, error) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		key, err := ipkey.Of(host, ipv6Subnet)
		if err != nil {
			return "", fmt.Errorf("httplimit: %w", err)
		}
		return key, nil
	}
}

// WithKey sets the key function (AddressKey(64) by default).
func WithKey(key KeyFunc) Option { return func(o *options) { o.key = key } }

// WithIPv6Subnet keys by the client's address, an IPv6 one by its network of bits (1..128).
func WithIPv6Subnet(bits int) Option {
	return func(o *options) {
		if err := ipkey.CheckSubnet(bits); err != nil {
			o.fail(fmt.Errorf("httplimit: %w", err))
		}
		o.key = AddressKey(bits)
	}
}

// WithPrefix sets the prefix of every key ("rl:").
func WithPrefix(prefix string) Option { return func(o *options) { o.prefix = prefix } }

// WithHeaders sets the header style (winlimit.Draft11 by default).
func WithHeaders(style winlimit.HeaderStyle) Option {
	return func(o *options) {
		if _, err := winlimit.ParseHeaderStyle(string(style)); err != nil {
			o.fail(fmt.Errorf("httplimit: %w", err))
		}
		o.style = style
	}
}

// FailOpen lets requests through, without the fields, while Redis fails (503 by default).
func FailOpen() Option { return func(o *options) { o.failOpen = true } }

// Shadow lets rejected requests through as if accepted, counted and warned about once per
// key per quiet period: a new limit tried on live traffic.
func Shadow() Option { return func(o *options) { o.shadow = true } }

// WithCount counts only failures or only successes (isFailure: StatusFailed when nil).
func WithCount(count Count, isFailure func(status int) bool) Option {
	return func(o *options) {
		switch count {
		case CountAll, CountFailures, CountSuccesses:
			o.count = count
		default:
			o.fail(fmt.Errorf("httplimit: count must be all, failures or successes, not %q", string(count)))
		}
		if isFailure != nil {
			o.isFailure = isFailure
		}
	}
}

// WithBlock is the Block of every recording call of the check that gives none.
func WithBlock(d time.Duration) Option { return func(o *options) { o.block = &d } }

// OnReject answers rejected requests (TooManyRequests by default); the fields are set.
func OnReject(h http.Handler) Option { return func(o *options) { o.onReject = h } }

// WithLogger sets where the middleware's lines go (slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithShadowLogKeys bounds the keys shadow mode's warnings remember (10,000).
func WithShadowLogKeys(n int) Option {
	return func(o *options) {
		if n < 1 {
			o.fail(fmt.Errorf("httplimit: shadow log keys must be at least 1, not %d", n))
		}
		o.shadowLogKeys = n
	}
}
