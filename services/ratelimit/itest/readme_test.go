package itest

// The README's code blocks, word for word (scripts/check_snippets.py holds them to it): the
// YAML of winlimit's own keys is served, and Envoy's and Istio's filter and cluster are read
// into Envoy's own types and validated as Envoy validates them, pointed at this service.

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3" // the cluster's @type
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"gopkg.in/yaml.v3"

	"github.com/winlimit/winlimit/services/ratelimit/internal/settings"
)

const readmeKeys = `
domain: api
descriptors:
  - key: user
    rate_limit:
      algorithm: slide        # fixed (default) | slide | gcra
      window: 30s             # any length; or unit + unit_multiplier: 5
      requests_per_unit: 100
      block: 10m              # a rejection keeps the key refused for 10 minutes
  - key: upload
    rate_limit:
      algorithm: gcra
      unit: minute
      requests_per_unit: 10
      burst: 20
  - key: tenant
    rate_limits:              # several limits, one key, one atomic call (slide only)
      - {algorithm: slide, unit: second, requests_per_unit: 10}
      - {algorithm: slide, unit: hour, requests_per_unit: 1000}
`

func TestTheReadmesOwnKeysAreServedAsWritten(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": readmeKeys}, nil)
	inOneWindow(t, url, time.Second, 300*time.Millisecond, func() error {
		return s.sequence(t, []step{
			{request("api", entries("user", "u")), ok, []want{{code: ok, remaining: 99, perUnit: 100}}},
			{request("api", entries("upload", "u")), ok, []want{{code: ok, remaining: 19, perUnit: 10}}},
			{request("api", entries("tenant", "u")), ok, []want{{code: ok, remaining: 9, perUnit: 10}}},
		})
	})
}

const readmeEnvoy = `
clusters:
  - name: rate_limit_service
    type: STRICT_DNS
    typed_extension_protocol_options:
      envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
        "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
        explicit_http_config: {http2_protocol_options: {}}
    load_assignment:
      cluster_name: rate_limit_service
      endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: ratelimit, port_value: 8081}}}}]}]
http_filters:
  - name: envoy.filters.http.ratelimit
    typed_config:
      "@type": type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit
      domain: api
      failure_mode_deny: false      # UNAVAILABLE while Redis fails: let traffic through
      rate_limit_service:
        transport_api_version: V3
        grpc_service: {envoy_grpc: {cluster_name: rate_limit_service}}
`

const readmeIstio = `
apiVersion: networking.istio.io/v1alpha3
kind: EnvoyFilter
metadata: {name: filter-ratelimit, namespace: istio-system}
spec:
  workloadSelector: {labels: {istio: ingressgateway}}
  configPatches:
    - applyTo: HTTP_FILTER
      match:
        context: GATEWAY
        listener: {filterChain: {filter: {name: envoy.filters.network.http_connection_manager, subFilter: {name: envoy.filters.http.router}}}}
      patch:
        operation: INSERT_BEFORE
        value:
          name: envoy.filters.http.ratelimit
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit
            domain: api
            failure_mode_deny: false
            rate_limit_service:
              transport_api_version: V3
              grpc_service: {envoy_grpc: {cluster_name: outbound|8081||ratelimit.default.svc.cluster.local}}
`

// envoyMessage reads a YAML value into an Envoy message as Envoy reads its configuration (the
// proto's field names, Any by @type), then runs Envoy's validation rules.
func envoyMessage(t *testing.T, value any, m interface {
	proto.Message
	ValidateAll() error
}) {
	t.Helper()
	js, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	if err := protojson.Unmarshal(js, m); err != nil {
		t.Fatalf("%T: %v", m, err)
	}
	if err := m.ValidateAll(); err != nil {
		t.Fatalf("%T: %v", m, err)
	}
}

// rateLimitFilter is an HTTP filter that must be Envoy's rate limit filter, asking this
// service's domain over gRPC, letting traffic through while Redis fails.
func rateLimitFilter(t *testing.T, value any) *ratelimitv3.RateLimit {
	t.Helper()
	var filter hcmv3.HttpFilter
	envoyMessage(t, value, &filter)
	var rl ratelimitv3.RateLimit
	if err := filter.GetTypedConfig().UnmarshalTo(&rl); err != nil {
		t.Fatal(err)
	}
	if err := rl.ValidateAll(); err != nil {
		t.Fatal(err)
	}
	if rl.GetDomain() != "api" || rl.GetFailureModeDeny() || rl.GetRateLimitService().GetTransportApiVersion().String() != "V3" {
		t.Fatalf("filter %v", &rl)
	}
	return &rl
}

func defaultGRPCPort(t *testing.T) uint32 {
	t.Helper()
	s, err := settings.Read(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	return uint32(s.GrpcPort)
}

func TestTheReadmesEnvoyClusterAndFilterAreValidAndPointAtTheGRPCPort(t *testing.T) {
	var doc struct {
		Clusters    []any `yaml:"clusters"`
		HTTPFilters []any `yaml:"http_filters"`
	}
	if err := yaml.Unmarshal([]byte(readmeEnvoy), &doc); err != nil {
		t.Fatal(err)
	}
	var cluster clusterv3.Cluster
	envoyMessage(t, doc.Clusters[0], &cluster)
	rl := rateLimitFilter(t, doc.HTTPFilters[0])
	if got := rl.GetRateLimitService().GetGrpcService().GetEnvoyGrpc().GetClusterName(); got != cluster.GetName() {
		t.Fatalf("the filter asks cluster %q, the cluster is %q", got, cluster.GetName())
	}
	port := cluster.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint().GetAddress().GetSocketAddress().GetPortValue()
	if want := defaultGRPCPort(t); port != want {
		t.Fatalf("the cluster's port %d, the service's gRPC port %d", port, want)
	}
}

func TestTheReadmesIstioFilterIsValidAndPointsAtTheGRPCPort(t *testing.T) {
	var doc struct {
		Spec struct {
			ConfigPatches []struct {
				Patch struct {
					Value any `yaml:"value"`
				} `yaml:"patch"`
			} `yaml:"configPatches"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(readmeIstio), &doc); err != nil {
		t.Fatal(err)
	}
	rl := rateLimitFilter(t, doc.Spec.ConfigPatches[0].Patch.Value)
	// Istio names a service's cluster outbound|<port>||<host>.
	want := fmt.Sprintf("outbound|%d||ratelimit.default.svc.cluster.local", defaultGRPCPort(t))
	if got := rl.GetRateLimitService().GetGrpcService().GetEnvoyGrpc().GetClusterName(); got != want {
		t.Fatalf("the filter asks cluster %q, want %q", got, want)
	}
}
