// Package server runs winlimit-ratelimit: the gRPC service, the HTTP endpoints, the debug
// port, Prometheus and the configuration's reloads.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
	winlimit "github.com/winlimit/winlimit/clients/go"
	"github.com/winlimit/winlimit/clients/go/winprom"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"

	"github.com/winlimit/winlimit/services/ratelimit/internal/config"
	"github.com/winlimit/winlimit/services/ratelimit/internal/service"
	"github.com/winlimit/winlimit/services/ratelimit/internal/settings"
)

// reloadInterval is how often the configuration folder is read for changes.
const reloadInterval = 500 * time.Millisecond

// Run serves until ctx ends. A configuration that does not load, or a setting refused,
// stops it before it listens: upstream would answer every call UNKNOWN instead.
func Run(ctx context.Context, s settings.Settings, log *slog.Logger) error {
	for _, w := range s.Warnings {
		log.Warn(w)
	}
	if s.DisableStats {
		log.Info("Stats disabled")
	}
	rdb, err := redisClient(s)
	if err != nil {
		return err
	}
	defer rdb.Close()
	limiter, err := newLimiter(rdb, s, log)
	if err != nil {
		return err
	}
	opts, err := serviceOptions(s, log)
	if err != nil {
		return err
	}
	svc := service.New(limiter, nil, opts)
	if s.ConfigType == settings.ConfigXDS {
		err = subscribe(ctx, s, svc, log)
	} else {
		err = watchFiles(ctx, s, svc, log)
	}
	if err != nil {
		return err
	}
	return serve(ctx, s, svc, rdb, log)
}

// watchFiles loads the runtime folder's files, then reads the folder for changes.
func watchFiles(ctx context.Context, s settings.Settings, svc *service.Service, log *slog.Logger) error {
	dir := config.Dir{Root: s.RuntimeRoot, Subdirectory: s.RuntimeSub, App: s.RuntimeApp, IgnoreDotFiles: s.RuntimeIgnoreDotFiles}
	files, err := dir.Read()
	if err != nil {
		return fmt.Errorf("reading the configuration from %s: %w", dir.Path(), err)
	}
	cfg, err := config.Load(files, s.MergeDomainConfig)
	if err != nil {
		return err
	}
	svc.SetConfig(cfg)
	log.Info("configuration loaded", "dir", dir.Path(), "files", cfg.Files, "domains", cfg.Domains())
	go dir.Watch(ctx, reloadInterval, files, func(files []config.File) error {
		next, err := config.Load(files, s.MergeDomainConfig)
		if err != nil {
			return err
		}
		svc.SetConfig(next)
		log.Info("Successfully loaded new configuration", "files", next.Files, "domains", next.Domains())
		return nil
	}, log)
	return nil
}

func newLimiter(rdb redis.UniversalClient, s settings.Settings, log *slog.Logger) (*winlimit.Limiter, error) {
	opts := []winlimit.Option{winlimit.WithName("ratelimit"), winlimit.WithTimeout(s.RedisTimeout), winlimit.WithLogger(log)}
	if s.LocalCacheSizeInBytes > 0 {
		// The client's rejection cache counts lines, not bytes: about 128 bytes a line.
		opts = append(opts, winlimit.WithRejectionCache(max(1, s.LocalCacheSizeInBytes/128)))
	}
	if s.UsePrometheus {
		// The Go client's own metrics beside upstream's names: decisions by outcome, each
		// call's time and the breaker's state, which upstream's counters cannot show.
		client := winprom.New()
		if err := prometheus.DefaultRegisterer.Register(client); err != nil {
			return nil, err
		}
		opts = append(opts, winlimit.WithObserver(client))
	}
	return winlimit.New(rdb, opts...)
}

func serviceOptions(s settings.Settings, log *slog.Logger) (service.Options, error) {
	o := service.Options{KeyPrefix: s.CacheKeyPrefix, GlobalShadow: s.GlobalShadowMode, NearLimitRatio: s.NearLimitRatio, Logger: log}
	if s.HeadersEnabled {
		o.Headers = &service.HeaderNames{Limit: s.HeaderLimit, Remaining: s.HeaderRemaining, Reset: s.HeaderReset}
	}
	switch {
	case s.UsePrometheus && s.PrometheusMapperYAML != "":
		m, err := newMappedMetrics(prometheus.DefaultRegisterer, s.PrometheusMapperYAML)
		if err != nil {
			return o, err
		}
		o.Stats = m
	case s.UsePrometheus:
		o.Stats = newMetrics(prometheus.DefaultRegisterer)
	}
	return o, nil
}

// serve listens on every port, then waits for ctx or the first server to fail.
func serve(ctx context.Context, s settings.Settings, svc *service.Service, rdb redis.UniversalClient, log *slog.Logger) error {
	opts, flush, err := grpcOptions(s, log)
	if err != nil {
		return err
	}
	defer flush()
	grpcServer := grpc.NewServer(opts...)
	pb.RegisterRateLimitServiceServer(grpcServer, svc)
	healthpb.RegisterHealthServer(grpcServer, health.NewServer())
	servers := []*http.Server{
		{Addr: hostPort(s.Host, s.Port), Handler: mainMux(svc, rdb, s.RedisTimeout)},
		{Addr: hostPort(s.DebugHost, s.DebugPort), Handler: debugMux(svc)},
	}
	if s.UsePrometheus {
		mux := http.NewServeMux()
		mux.Handle(s.PrometheusPath, promhttp.Handler())
		servers = append(servers, &http.Server{Addr: s.PrometheusAddr, Handler: mux})
	}
	failed := make(chan error, len(servers)+1)
	grpcListener, err := net.Listen("tcp", hostPort(s.GrpcHost, s.GrpcPort))
	if err != nil {
		return err
	}
	go func() { failed <- grpcServer.Serve(grpcListener) }()
	for _, hs := range servers {
		l, err := net.Listen("tcp", hs.Addr)
		if err != nil {
			grpcServer.Stop()
			return err
		}
		go func() { failed <- hs.Serve(l) }()
	}
	log.Info("listening", "grpc", grpcListener.Addr().String(), "http", servers[0].Addr, "debug", servers[1].Addr)
	select {
	case <-ctx.Done():
		err = nil
	case err = <-failed:
	}
	grpcServer.GracefulStop()
	for _, hs := range servers {
		_ = hs.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// grpcOptions are the gRPC server's TLS, connection age and tracing, and the flush of the
// spans left at the end.
func grpcOptions(s settings.Settings, log *slog.Logger) ([]grpc.ServerOption, func(), error) {
	opts, err := grpcServerOptions(s.GRPCTLS)
	if err != nil {
		return nil, nil, err
	}
	traced, shutdown, err := startTracing(s.Tracing, log)
	if err != nil {
		return nil, nil, err
	}
	flush := func() {
		// Bounded: a collector that does not answer must not hold the exit.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			log.Warn("tracing: the last spans were not sent", "err", err)
		}
	}
	opts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{
		MaxConnectionAge: s.GrpcMaxConnectionAge, MaxConnectionAgeGrace: s.GrpcMaxConnectionAgeGrace}))
	return append(opts, traced...), flush, nil
}

func hostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }
