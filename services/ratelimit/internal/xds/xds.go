// Package xds subscribes to rate limit configuration from an xDS management server (State of
// the World, over ADS), as upstream's CONFIG_TYPE=GRPC_XDS_SOTW does and as Envoy Gateway
// serves it: type ratelimit.config.ratelimit.v3.RateLimitConfig, every response the whole
// configuration.
package xds

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"github.com/envoyproxy/go-control-plane/pkg/client/sotw/v3"
	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	rlsconf "github.com/envoyproxy/go-control-plane/ratelimit/config/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/winlimit/winlimit/services/ratelimit/internal/settings"
)

// Apply puts a configuration the server sent in force. Its error refuses it: the response
// is NACKed with the error's text and the configuration in force stays.
type Apply func([]*rlsconf.RateLimitConfig) error

// Subscriber holds one subscription's settings.
type Subscriber struct {
	Settings settings.XDS
	// TLS is the client's TLS configuration when CONFIG_GRPC_XDS_SERVER_USE_TLS is set.
	TLS *tls.Config
	Log *slog.Logger
}

// Run subscribes until ctx ends, giving every response to apply and ACKing or NACKing it. A
// broken stream is opened again after the backoff, announcing the last version ACKed, so the
// server resends only what changed since.
func (s Subscriber) Run(ctx context.Context, apply Apply) error {
	conn, err := s.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx = metadata.NewOutgoingContext(ctx, metadata.New(s.Settings.Headers))
	ads := sotw.NewADSClient(ctx, s.node(), resource.RateLimitConfigType)
	wait := newBackoff(s.Settings.Backoff)
	for {
		err := s.stream(ads, conn, apply, wait)
		if ctx.Err() != nil {
			return nil
		}
		d := wait.next()
		s.Log.Error("the xDS stream failed: the configuration in force stays; opening it again",
			"server", s.Settings.ServerURL, "error", err, "in", d)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(d):
		}
	}
}

// stream opens one ADS stream and serves it until it fails.
func (s Subscriber) stream(ads sotw.ADSClient, conn *grpc.ClientConn, apply Apply, wait *backoffState) error {
	// WaitForReady: the stream waits for the connection, which gRPC retries every
	// CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL, instead of failing at once.
	if err := ads.InitConnect(conn, grpc.WaitForReady(true)); err != nil {
		return err
	}
	s.Log.Info("subscribed to the xDS server", "server", s.Settings.ServerURL, "node", s.Settings.NodeID)
	for {
		resp, err := ads.Fetch()
		if err != nil {
			return err
		}
		wait.reset()
		if err := decodeAndApply(resp.Resources, apply); err != nil {
			s.Log.Error("Error loading new configuration from xDS: NACKed, the last good configuration stays in force", "error", err.Error())
			if err := ads.Nack(err.Error()); err != nil {
				return err
			}
			continue
		}
		if err := ads.Ack(); err != nil {
			return err
		}
	}
}

func decodeAndApply(resources []*anypb.Any, apply Apply) error {
	configs := make([]*rlsconf.RateLimitConfig, 0, len(resources))
	for _, res := range resources {
		c := &rlsconf.RateLimitConfig{}
		if err := res.UnmarshalTo(c); err != nil {
			return fmt.Errorf("a resource of type %s is not a RateLimitConfig: %w", res.GetTypeUrl(), err)
		}
		configs = append(configs, c)
	}
	return apply(configs)
}

func (s Subscriber) dial() (*grpc.ClientConn, error) {
	creds := insecure.NewCredentials()
	if s.Settings.UseTLS {
		if s.TLS == nil {
			return nil, errors.New("CONFIG_GRPC_XDS_SERVER_USE_TLS: no TLS configuration")
		}
		creds = credentials.NewTLS(s.TLS)
	}
	retry := s.Settings.ConnectRetry
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: retry, Multiplier: 1, Jitter: 0.2, MaxDelay: retry},
			MinConnectTimeout: retry,
		}),
	}
	if n := s.Settings.MaxMsgSize; n > 0 {
		opts = append(opts, grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(n)))
	}
	conn, err := grpc.NewClient(s.Settings.ServerURL, opts...)
	if err != nil {
		return nil, fmt.Errorf("CONFIG_GRPC_XDS_SERVER_URL: %w", err)
	}
	return conn, nil
}

// node is the Node the server keys its snapshots on: CONFIG_GRPC_XDS_NODE_ID, with
// CONFIG_GRPC_XDS_NODE_METADATA as string fields.
func (s Subscriber) node() *corev3.Node {
	fields := make(map[string]*structpb.Value, len(s.Settings.NodeMetadata))
	for k, v := range s.Settings.NodeMetadata {
		fields[k] = structpb.NewStringValue(v)
	}
	return &corev3.Node{Id: s.Settings.NodeID, Metadata: &structpb.Struct{Fields: fields}}
}
