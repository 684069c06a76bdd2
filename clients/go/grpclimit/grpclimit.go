// Package grpclimit is winlimit's gRPC server interceptors, unary and stream, in
// go-grpc-middleware's shape: a rejected call ends with codes.ResourceExhausted and an
// errdetails.RetryInfo carrying the delay (so clients can back off), and the rate-limit
// fields go out as response metadata.
package grpclimit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/internal/ipkey"
)

// Check decides one call: a limiter call on key (the prefix included). fullMethod is the
// call's "/package.Service/Method", so limits can differ per method.
type Check func(ctx context.Context, l winlimit.Deciding, key string, fullMethod string) (winlimit.Decision, error)

// KeyFunc gives a call's key; "" leaves the call unlimited.
type KeyFunc func(ctx context.Context, fullMethod string) (string, error)

// Interceptors limit the calls of a gRPC server. The limiter reports the decisions (a
// winprom Collector given to winlimit.WithObserver counts each once).
type Interceptors struct {
	limiter winlimit.Deciding
	check   Check
	o       options
}

// Option configures Interceptors.
type Option func(*options)

type options struct {
	key      KeyFunc
	prefix   string
	failOpen bool
}

// WithKey sets the key function (PeerKey by default: the client's address, IPv6 by /64).
func WithKey(key KeyFunc) Option { return func(o *options) { o.key = key } }

// WithPrefix sets the keys' prefix ("rl:").
func WithPrefix(p string) Option { return func(o *options) { o.prefix = p } }

// FailOpen lets calls through while Redis fails (codes.Unavailable by default).
func FailOpen() Option { return func(o *options) { o.failOpen = true } }

// New makes the interceptors of a limiter and a check.
func New(limiter winlimit.Deciding, check Check, opts ...Option) (*Interceptors, error) {
	if limiter == nil || reflect.ValueOf(limiter).IsNil() || check == nil {
		return nil, errors.New("grpclimit: a limiter and a check are needed")
	}
	o := options{key: PeerKey, prefix: winlimit.DefaultPrefix}
	for _, opt := range opts {
		opt(&o)
	}
	if o.key == nil {
		return nil, errors.New("grpclimit: the key function is nil")
	}
	return &Interceptors{limiter: limiter, check: check, o: o}, nil
}

// PeerKey keys a call by its peer's address, an IPv6 one by its /64.
func PeerKey(ctx context.Context, _ string) (string, error) {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return "", nil
	}
	host, _, err := net.SplitHostPort(p.Addr.String())
	if err != nil {
		host = p.Addr.String()
	}
	key, err := ipkey.Of(host, winlimit.DefaultIPv6Subnet)
	if err != nil {
		return "", fmt.Errorf("grpclimit: %w", err)
	}
	return key, nil
}

// UnaryServerInterceptor limits unary calls.
func (i *Interceptors) UnaryServerInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if err := i.limit(ctx, info.FullMethod, func(md metadata.MD) error { return grpc.SetHeader(ctx, md) }); err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// StreamServerInterceptor limits streams, once when each opens.
func (i *Interceptors) StreamServerInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if err := i.limit(ss.Context(), info.FullMethod, ss.SetHeader); err != nil {
			return err
		}
		return handler(srv, ss)
	}
}

// limit decides a call: nil lets it through; else its status.
func (i *Interceptors) limit(ctx context.Context, method string, setHeader func(metadata.MD) error) error {
	key, err := i.o.key(ctx, method)
	if err != nil {
		return status.Error(codes.Internal, "rate limit key: "+err.Error())
	}
	if key == "" {
		return nil
	}
	d, err := i.check(ctx, i.limiter, i.o.prefix+key, method)
	if err != nil && !winlimit.IsRedisError(err) {
		return status.Error(codes.Internal, "rate limit check: "+err.Error())
	}
	if err != nil {
		if i.o.failOpen {
			return nil
		}
		return status.Error(codes.Unavailable, "rate limiter unavailable")
	}
	if fields, err := d.Headers(); err == nil {
		md := metadata.MD{}
		for k, v := range fields {
			md.Set(strings.ToLower(k), v...)
		}
		_ = setHeader(md)
	}
	if d.Allowed {
		return nil
	}
	return rejected(d)
}

// rejected is ResourceExhausted, with the retry delay in a RetryInfo when a retry can succeed.
func rejected(d winlimit.Decision) error {
	if d.RetryAfter <= 0 {
		return status.Error(codes.ResourceExhausted, "rate limited: this call can never fit the limit")
	}
	st := status.New(codes.ResourceExhausted, fmt.Sprintf("rate limited: retry after %d ms", d.RetryAfter/time.Millisecond))
	withInfo, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(d.RetryAfter)})
	if err != nil {
		return st.Err()
	}
	return withInfo.Err()
}
