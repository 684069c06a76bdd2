// Package settings reads envoyproxy/ratelimit's environment variables: the ones winlimit
// honours, and a refusal or a warning for each one it does not.
package settings

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Settings are the service's settings, by upstream's names and defaults.
type Settings struct {
	Host, GrpcHost, DebugHost      string
	Port, GrpcPort, DebugPort      int
	LogLevel, LogFormat            string
	RuntimeRoot, RuntimeSub        string
	RuntimeApp                     string
	RuntimeIgnoreDotFiles          bool
	RuntimeWatchRoot               bool
	MergeDomainConfig              bool
	RedisSocketType, RedisType     string
	RedisURL, RedisAuth            string
	RedisSentinelAuth              string
	RedisTLS, RedisTLSSkipVerify   bool
	RedisTLSCert, RedisTLSKey      string
	RedisTLSCACert                 string
	RedisPoolSize                  int
	RedisTimeout                   time.Duration
	CacheKeyPrefix                 string
	LocalCacheSizeInBytes          int
	NearLimitRatio                 float64
	GlobalShadowMode               bool
	HeadersEnabled                 bool
	HeaderLimit, HeaderRemaining   string
	HeaderReset                    string
	UsePrometheus                  bool
	DisableStats                   bool // DISABLE_STATS: no stats at all, as upstream
	PrometheusAddr, PrometheusPath string
	PrometheusMapperYAML           string // a statsd_exporter mapping file; empty: upstream's default names
	Tracing                        Tracing
	// GRPCTLS is GRPC_SERVER_USE_TLS and its files: TLS on the gRPC port, as Envoy Gateway
	// sets it for its rate limit deployment.
	GRPCTLS GRPCTLS
	// GrpcMaxConnectionAge and its grace close a connection with GOAWAY (grpc-go adds ±10%),
	// so a client spreads its calls over new replicas.
	GrpcMaxConnectionAge, GrpcMaxConnectionAgeGrace time.Duration
	// ConfigType is FILE (the runtime folder) or GRPC_XDS_SOTW (XDS below).
	ConfigType string
	// ForceStartWithoutInitialConfig serves before the first configuration arrives.
	ForceStartWithoutInitialConfig bool
	XDS                            XDS
	// Warnings are settings left as upstream's defaults that winlimit does not implement.
	Warnings []string
}

// GRPCTLS is TLS on the gRPC port: the server's certificate and key, and, when ClientCACert
// is given, client certificates required and verified against it (with ClientSAN among
// their names when given).
type GRPCTLS struct {
	On                      bool
	Cert, Key               string
	ClientCACert, ClientSAN string
}

// env reads the environment through a function, so tests give their own.
type env func(string) (string, bool)

type reader struct {
	get  env
	errs []error
}

func (r *reader) str(name, def string) string {
	if v, ok := r.get(name); ok {
		return v
	}
	return def
}

func (r *reader) integer(name string, def int) int {
	v, ok := r.get(name)
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not an integer", name, v))
	}
	return n
}

func (r *reader) boolean(name string, def bool) bool {
	v, ok := r.get(name)
	if !ok || v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not a boolean", name, v))
	}
	return b
}

func (r *reader) duration(name string, def time.Duration) time.Duration {
	v, ok := r.get(name)
	if !ok || v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not a duration", name, v))
	}
	return d
}

func (r *reader) float(name string, def float64) float64 {
	v, ok := r.get(name)
	if !ok || v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not a number", name, v))
	}
	return f
}

// FromEnv reads the process's environment.
func FromEnv() (Settings, error) { return Read(os.LookupEnv) }

// Read reads settings through get; the error names every setting refused.
func Read(get env) (Settings, error) {
	r := &reader{get: get}
	s := Settings{
		Host: r.str("HOST", "0.0.0.0"), Port: r.integer("PORT", 8080),
		GrpcHost: r.str("GRPC_HOST", "0.0.0.0"), GrpcPort: r.integer("GRPC_PORT", 8081),
		DebugHost: r.str("DEBUG_HOST", "0.0.0.0"), DebugPort: r.integer("DEBUG_PORT", 6070),
		LogLevel: r.str("LOG_LEVEL", "WARN"), LogFormat: r.str("LOG_FORMAT", "text"),
		RuntimeRoot: r.str("RUNTIME_ROOT", "/srv/runtime_data/current"), RuntimeSub: r.str("RUNTIME_SUBDIRECTORY", ""),
		RuntimeApp: r.str("RUNTIME_APPDIRECTORY", "config"), RuntimeIgnoreDotFiles: r.boolean("RUNTIME_IGNOREDOTFILES", false),
		RuntimeWatchRoot: r.boolean("RUNTIME_WATCH_ROOT", true), MergeDomainConfig: r.boolean("MERGE_DOMAIN_CONFIG", false),
		RedisSocketType: r.str("REDIS_SOCKET_TYPE", "unix"), RedisType: strings.ToUpper(r.str("REDIS_TYPE", "SINGLE")),
		RedisURL: r.str("REDIS_URL", "/var/run/nutcracker/ratelimit.sock"), RedisAuth: r.str("REDIS_AUTH", ""),
		RedisSentinelAuth: r.str("REDIS_SENTINEL_AUTH", ""),
		RedisTLS:          r.boolean("REDIS_TLS", false), RedisTLSSkipVerify: r.boolean("REDIS_TLS_SKIP_HOSTNAME_VERIFICATION", false),
		RedisTLSCert: r.str("REDIS_TLS_CLIENT_CERT", ""), RedisTLSKey: r.str("REDIS_TLS_CLIENT_KEY", ""),
		RedisTLSCACert: r.str("REDIS_TLS_CACERT", ""), RedisPoolSize: r.integer("REDIS_POOL_SIZE", 10),
		RedisTimeout: r.duration("REDIS_TIMEOUT", 10*time.Second), CacheKeyPrefix: r.str("CACHE_KEY_PREFIX", ""),
		LocalCacheSizeInBytes: r.integer("LOCAL_CACHE_SIZE_IN_BYTES", 0), NearLimitRatio: r.float("NEAR_LIMIT_RATIO", 0.8),
		GlobalShadowMode: r.boolean("SHADOW_MODE", false), HeadersEnabled: r.boolean("LIMIT_RESPONSE_HEADERS_ENABLED", false),
		HeaderLimit: r.str("LIMIT_LIMIT_HEADER", "RateLimit-Limit"), HeaderRemaining: r.str("LIMIT_REMAINING_HEADER", "RateLimit-Remaining"),
		HeaderReset: r.str("LIMIT_RESET_HEADER", "RateLimit-Reset"), UsePrometheus: r.boolean("USE_PROMETHEUS", false),
		PrometheusAddr: r.str("PROMETHEUS_ADDR", ":9090"), PrometheusPath: r.str("PROMETHEUS_PATH", "/metrics"),
		PrometheusMapperYAML: r.str("PROMETHEUS_MAPPER_YAML", ""), DisableStats: r.boolean("DISABLE_STATS", false),
	}
	s.ConfigType = strings.ToUpper(r.str("CONFIG_TYPE", "FILE"))
	s.ForceStartWithoutInitialConfig = r.boolean("FORCE_START_WITHOUT_INITIAL_CONFIG", false)
	s.XDS = r.xds()
	s.Tracing = r.tracing()
	s.GRPCTLS = GRPCTLS{On: r.boolean("GRPC_SERVER_USE_TLS", false),
		Cert: r.str("GRPC_SERVER_TLS_CERT", ""), Key: r.str("GRPC_SERVER_TLS_KEY", ""),
		ClientCACert: r.str("GRPC_CLIENT_TLS_CACERT", ""), ClientSAN: r.str("GRPC_CLIENT_TLS_SAN", "")}
	s.GrpcMaxConnectionAge = r.duration("GRPC_MAX_CONNECTION_AGE", 24*time.Hour)
	s.GrpcMaxConnectionAgeGrace = r.duration("GRPC_MAX_CONNECTION_AGE_GRACE", time.Hour)
	r.unsupported(&s)
	r.check(&s)
	return s, errors.Join(r.errs...)
}

func (r *reader) check(s *Settings) {
	switch s.RedisType {
	case "SINGLE", "CLUSTER", "SENTINEL":
	default:
		r.errs = append(r.errs, fmt.Errorf("REDIS_TYPE: %q is not single, cluster or sentinel", s.RedisType))
	}
	switch strings.ToLower(s.RedisSocketType) {
	case "unix", "tcp":
	default:
		r.errs = append(r.errs, fmt.Errorf("REDIS_SOCKET_TYPE: %q is not unix or tcp", s.RedisSocketType))
	}
	if s.ConfigType == ConfigXDS {
		r.checkXDS(s.XDS)
	}
	if s.ConfigType != ConfigFile && s.ConfigType != ConfigXDS {
		r.errs = append(r.errs, fmt.Errorf("CONFIG_TYPE: %q is not %s or %s", s.ConfigType, ConfigFile, ConfigXDS))
	}
	if s.GRPCTLS.On && (s.GRPCTLS.Cert == "" || s.GRPCTLS.Key == "") {
		r.errs = append(r.errs, errors.New("GRPC_SERVER_USE_TLS: needs GRPC_SERVER_TLS_CERT and GRPC_SERVER_TLS_KEY"))
	}
	if s.RedisTimeout <= 0 {
		r.errs = append(r.errs, fmt.Errorf("REDIS_TIMEOUT: must be positive, not %v", s.RedisTimeout))
	}
}
