// Package hooks is how winlimit's middlewares reach the limiter's plumbing without the
// winlimit package exporting it: the winlimit package fills NewRecorder in when it is
// initialised, and reads the shadow mark that a middleware puts on a request's context.
package hooks

import (
	"context"
	"time"
)

// Recorder gives back the units of the recording calls made through it.
type Recorder interface {
	Refund(ctx context.Context) error
}

// NewRecorder wraps limiter (a winlimit.Deciding): the wrapper (a winlimit.Deciding too)
// adds block to every recording call that gives none, and remembers the accepted recording
// calls for the Recorder to refund. Set by the winlimit package.
var NewRecorder func(limiter any, block *time.Duration) (wrapped any, rec Recorder)

type shadowKey struct{}

// WithShadow marks ctx: a rejection decided under it is let through by shadow mode, and
// the limiter reports it as shadow_rejected.
func WithShadow(ctx context.Context) context.Context {
	return context.WithValue(ctx, shadowKey{}, true)
}

// IsShadow reports ctx marked by WithShadow.
func IsShadow(ctx context.Context) bool {
	shadow, _ := ctx.Value(shadowKey{}).(bool)
	return shadow
}
