package itest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP receiver: it decodes each POST /v1/traces and keeps its spans
// with their resource's service.name.
type collector struct {
	mu       sync.Mutex
	requests int
	spans    []receivedSpan
	arrived  chan struct{}
	url      string
}

type receivedSpan struct {
	service, name string
	kind          tracepb.Span_SpanKind
}

func startCollector(t *testing.T) *collector {
	c := &collector{arrived: make(chan struct{}, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
			return
		}
		c.keep(&req)
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	c.url = srv.URL
	return c
}

// grpcCollector is an OTLP/gRPC receiver: the TraceService, keeping spans as collector does.
type grpcCollector struct {
	coltracepb.UnimplementedTraceServiceServer
	*collector
}

func (g grpcCollector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.keep(req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func startGRPCCollector(t *testing.T) *collector {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{arrived: make(chan struct{}, 100), url: "http://" + l.Addr().String()}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, grpcCollector{collector: c})
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	return c
}

func (c *collector) keep(req *coltracepb.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	for _, rs := range req.ResourceSpans {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				c.spans = append(c.spans, receivedSpan{service: service, name: sp.Name, kind: sp.Kind})
			}
		}
	}
	c.arrived <- struct{}{}
}

func (c *collector) received() (int, []receivedSpan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests, append([]receivedSpan(nil), c.spans...)
}

// tracingEnv points the service's OTLP exporter at the collector, flushing batches often.
func tracingEnv(c *collector, settings ...env) env {
	vars := env{"OTEL_EXPORTER_OTLP_ENDPOINT": c.url, "OTEL_BSP_SCHEDULE_DELAY": "50"}
	for _, more := range settings {
		for k, v := range more {
			vars[k] = v
		}
	}
	return vars
}

// askTraced makes one call with tracing on, sent to the collector, and wants its one span.
func askTraced(t *testing.T, c *collector, settings env) {
	t.Helper()
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perMinute},
		tracingEnv(c, env{"TRACING_ENABLED": "true", "TRACING_SERVICE_NAME": "rls-under-test"}, settings))
	s.ask(t, request("api", entries("user", "traced")))
	select {
	case <-c.arrived:
	case <-time.After(readyWithin):
		t.Fatal("no spans arrived")
	}
	_, spans := c.received()
	want := receivedSpan{service: "rls-under-test", name: "envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit",
		kind: tracepb.Span_SPAN_KIND_SERVER}
	if len(spans) != 1 || spans[0] != want {
		t.Fatalf("spans %+v, want [%+v]", spans, want)
	}
}

func TestAShouldRateLimitCallIsOneServerSpanUnderTheServiceName(t *testing.T) {
	askTraced(t, startCollector(t), nil)
}

func TestTheGRPCExporterSendsTheSameSpan(t *testing.T) {
	askTraced(t, startGRPCCollector(t), env{"TRACING_EXPORTER_PROTOCOL": "grpc"})
}

// askThenStop makes one call and stops the service, whose exit flushes any span left.
func askThenStop(t *testing.T, c *collector, settings env) int {
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perMinute}, tracingEnv(c, settings))
	s.ask(t, request("api", entries("user", "untraced")))
	s.stop()
	n, _ := c.received()
	return n
}

func TestSamplingRateZeroSendsNoSpan(t *testing.T) {
	c := startCollector(t)
	if n := askThenStop(t, c, env{"TRACING_ENABLED": "true", "TRACING_SAMPLING_RATE": "0"}); n != 0 {
		t.Fatalf("%d exports, want none", n)
	}
}

func TestTracingOffByDefaultExportsNothing(t *testing.T) {
	c := startCollector(t)
	if n := askThenStop(t, c, nil); n != 0 {
		t.Fatalf("%d exports, want none", n)
	}
}
