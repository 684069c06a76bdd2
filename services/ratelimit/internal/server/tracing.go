package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"google.golang.org/grpc"

	"github.com/winlimit/winlimit/services/ratelimit/internal/settings"
)

// startTracing sends spans over OTLP as upstream's TRACING_ENABLED does: a server span per
// gRPC call (otelgrpc), the service name, namespace and instance as resource attributes,
// W3C trace context taken from Envoy. It returns the gRPC server options that trace calls
// and the flush to run at shutdown; with tracing off, neither (no exporter is made).
func startTracing(t settings.Tracing, log *slog.Logger) ([]grpc.ServerOption, func(context.Context) error, error) {
	if !t.On {
		return nil, func(context.Context) error { return nil }, nil
	}
	client := otlptracehttp.NewClient()
	if t.Protocol == "grpc" {
		client = otlptracegrpc.NewClient()
	}
	exporter, err := otlptrace.New(context.Background(), client)
	if err != nil {
		return nil, nil, fmt.Errorf("TRACING_ENABLED: the OTLP exporter: %w", err)
	}
	instance := t.InstanceID
	if instance == "" {
		instance = rand.Text() // upstream's is a random UUID: unique per process
	}
	res := resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName(t.ServiceName),
		semconv.ServiceNamespace(t.Namespace), semconv.ServiceInstanceID(instance))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.TraceIDRatioBased(t.SamplingRate)))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	log.Info("tracing", "protocol", t.Protocol, "service", t.ServiceName, "namespace", t.Namespace, "instance", instance,
		"sampling_rate", t.SamplingRate)
	return []grpc.ServerOption{grpc.StatsHandler(otelgrpc.NewServerHandler(otelgrpc.WithTracerProvider(tp)))}, tp.Shutdown, nil
}
