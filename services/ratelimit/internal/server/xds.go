package server

import (
	"context"
	"crypto/tls"
	"log/slog"
	"sync"

	rlsconf "github.com/envoyproxy/go-control-plane/ratelimit/config/ratelimit/v3"

	"github.com/winlimit/winlimit/services/ratelimit/internal/config"
	"github.com/winlimit/winlimit/services/ratelimit/internal/service"
	"github.com/winlimit/winlimit/services/ratelimit/internal/settings"
	"github.com/winlimit/winlimit/services/ratelimit/internal/xds"
)

// subscribe takes the configuration from the xDS server. As upstream, it returns once the
// first configuration is in force (a refused one does not count: it is NACKed and the wait
// goes on), or at once with FORCE_START_WITHOUT_INITIAL_CONFIG, calls then failing until
// one arrives.
func subscribe(ctx context.Context, s settings.Settings, svc *service.Service, log *slog.Logger) error {
	tlsConf, err := xdsTLS(s.XDS)
	if err != nil {
		return err
	}
	first := make(chan struct{})
	var once sync.Once
	apply := func(resources []*rlsconf.RateLimitConfig) error {
		cfg, err := config.FromXDS(resources, s.MergeDomainConfig)
		if err != nil {
			return err
		}
		svc.SetConfig(cfg)
		log.Info("Successfully loaded new configuration", "source", "xds", "resources", cfg.Files, "domains", cfg.Domains())
		once.Do(func() { close(first) })
		return nil
	}
	failed := make(chan error, 1)
	sub := xds.Subscriber{Settings: s.XDS, TLS: tlsConf, Log: log}
	go func() {
		err := sub.Run(ctx, apply)
		if err != nil {
			log.Error("the xDS subscription stopped", "error", err)
		}
		failed <- err
	}()
	if s.ForceStartWithoutInitialConfig {
		return nil
	}
	log.Info("waiting for the first configuration from the xDS server", "server", s.XDS.ServerURL, "node", s.XDS.NodeID)
	select {
	case <-first:
		return nil
	case err := <-failed:
		return err
	case <-ctx.Done():
		return nil // stopped while waiting: serve sees ctx ended and returns at once
	}
}

// xdsTLS is the client's TLS for CONFIG_GRPC_XDS_SERVER_USE_TLS: the server verified by
// CONFIG_GRPC_XDS_SERVER_TLS_CACERT (else the system's roots) under the name
// CONFIG_GRPC_XDS_SERVER_TLS_SAN (else the URL's host), and the client's own certificate when
// given, as Envoy Gateway's mutual TLS asks.
func xdsTLS(x settings.XDS) (*tls.Config, error) {
	if !x.UseTLS {
		return nil, nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: x.TLSSAN}
	if err := loadTLSFiles(conf, tlsFiles{
		caSetting: "CONFIG_GRPC_XDS_SERVER_TLS_CACERT", ca: x.TLSCACert,
		certSetting: "CONFIG_GRPC_XDS_CLIENT_TLS_CERT", cert: x.TLSCert, key: x.TLSKey,
	}); err != nil {
		return nil, err
	}
	return conf, nil
}
