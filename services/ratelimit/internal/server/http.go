package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/winlimit/winlimit/services/ratelimit/internal/service"
)

// healthTimeout bounds a health check's PING when REDIS_TIMEOUT is longer: a prober waits
// for no one.
const healthTimeout = time.Second

func mainMux(svc *service.Service, rdb redis.UniversalClient, redisTimeout time.Duration) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthcheck", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), min(redisTimeout, healthTimeout))
		defer cancel()
		if err := ping(ctx, rdb); err != nil {
			http.Error(w, "Redis is unreachable: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, "OK")
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) { answerJSON(w, r, svc) })
	return mux
}

// ping reaches the server, or every primary of a cluster.
func ping(ctx context.Context, rdb redis.UniversalClient) error {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		return c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return n.Ping(ctx).Err() })
	}
	return rdb.Ping(ctx).Err()
}

// answerJSON is upstream's /json: a RateLimitRequest in protojson, the response back, 429
// when over the limit.
func answerJSON(w http.ResponseWriter, r *http.Request, svc *service.Service) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req pb.RateLimitRequest
	if err := protojson.Unmarshal(body, &req); err != nil {
		http.Error(w, "error: "+err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := svc.ShouldRateLimit(r.Context(), &req)
	if err != nil {
		code := http.StatusInternalServerError
		if status.Code(err) == codes.Unavailable {
			code = http.StatusServiceUnavailable
		}
		http.Error(w, "error: "+status.Convert(err).Message(), code)
		return
	}
	out, _ := protojson.Marshal(resp)
	w.Header().Set("Content-Type", "application/json")
	if resp.GetOverallCode() == pb.RateLimitResponse_OVER_LIMIT {
		w.WriteHeader(http.StatusTooManyRequests)
	}
	_, _ = w.Write(out)
}

// debugMux serves /rlconfig: the files and domains in force.
func debugMux(svc *service.Service) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/rlconfig", func(w http.ResponseWriter, _ *http.Request) {
		cfg := svc.Config()
		if cfg == nil {
			fmt.Fprintln(w, "no configuration loaded yet")
			return
		}
		fmt.Fprintf(w, "files: %v\ndomains: %v\n", cfg.Files, cfg.Domains())
	})
	return mux
}
