package settings

import (
	"fmt"
	"strings"
)

// refusedWhenOn are upstream features a deployment depends on when it turns them on:
// winlimit refuses to start rather than run without them.
var refusedWhenOn = []string{
	"QUOTA_MODE", "RESPONSE_DYNAMIC_METADATA", "REDIS_PERSECOND",
	"HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED",
	"MEMCACHE_TLS",
}

// refusedWhenSet are settings whose mere presence asks for something winlimit lacks.
var refusedWhenSet = []string{
	"GRPC_UDS", "MEMCACHE_HOST_PORT", "MEMCACHE_SRV", "REDIS_PERSECOND_URL",
}

// noEffect are upstream's tuning settings with nothing to tune here: a deployment that sets
// them starts (upstream's Redis Cluster even requires REDIS_PIPELINE_WINDOW or _LIMIT), with
// a warning for each, in this order.
var noEffect = []struct{ name, why string }{
	{"REDIS_PIPELINE_WINDOW", "each decision is one call, sent at once"},
	{"REDIS_PIPELINE_LIMIT", "each decision is one call, sent at once"},
	{"EXPIRATION_JITTER_MAX_SECONDS", "a winlimit key expires when its window ends"},
	{"REDIS_POOL_ON_EMPTY_BEHAVIOR", "a call waits for a connection within REDIS_TIMEOUT"},
}

// statsdSettings are upstream's statsd knobs: on by default there, so a deployment that
// never touched them gets a warning, not a refusal.
var statsdSettings = []string{"USE_STATSD", "STATSD_HOST", "STATSD_PORT", "USE_DOG_STATSD", "EXTRA_TAGS", "STATS_FLUSH_INTERVAL"}

func (r *reader) unsupported(s *Settings) {
	for _, name := range refusedWhenOn {
		if r.boolean(name, false) {
			r.errs = append(r.errs, fmt.Errorf("%s=true is not supported by winlimit-ratelimit", name))
		}
	}
	for _, name := range refusedWhenSet {
		if v, ok := r.get(name); ok && v != "" {
			r.errs = append(r.errs, fmt.Errorf("%s is not supported by winlimit-ratelimit", name))
		}
	}
	for _, n := range noEffect {
		if v, ok := r.get(n.name); ok && v != "" {
			s.Warnings = append(s.Warnings, n.name+" has no effect in winlimit-ratelimit: "+n.why)
		}
	}
	if b := strings.ToLower(r.str("BACKEND_TYPE", "redis")); b != "redis" {
		r.errs = append(r.errs, fmt.Errorf("BACKEND_TYPE=%s is not supported by winlimit-ratelimit (redis only)", b))
	}
	if s.DisableStats {
		// Upstream's first choice: no sink at all, Prometheus included.
		s.UsePrometheus = false
		return
	}
	if r.boolean("USE_STATSD", true) || r.boolean("USE_DOG_STATSD", false) {
		s.Warnings = append(s.Warnings, "statsd is not supported by winlimit-ratelimit: "+
			"no stats are sent to "+strings.Join(statsdSettings[1:3], "/")+"; set USE_PROMETHEUS=true (and USE_STATSD=false to silence this)")
	}
}
