package settings

import (
	"fmt"
	"strings"
)

// Tracing is upstream's OpenTelemetry settings. The collector's address and headers come
// from the OTEL_EXPORTER_OTLP_* variables, which the OTLP exporters read themselves.
type Tracing struct {
	On                                 bool
	Protocol                           string // http (upstream's default) or grpc
	ServiceName, Namespace, InstanceID string
	SamplingRate                       float64
}

func (r *reader) tracing() Tracing {
	t := Tracing{On: r.boolean("TRACING_ENABLED", false),
		Protocol:    strings.ToLower(r.str("TRACING_EXPORTER_PROTOCOL", "http")),
		ServiceName: r.str("TRACING_SERVICE_NAME", "RateLimit"), Namespace: r.str("TRACING_SERVICE_NAMESPACE", ""),
		InstanceID: r.str("TRACING_SERVICE_INSTANCE_ID", ""), SamplingRate: r.float("TRACING_SAMPLING_RATE", 1)}
	if t.On && t.Protocol != "http" && t.Protocol != "grpc" {
		r.errs = append(r.errs, fmt.Errorf("TRACING_EXPORTER_PROTOCOL=%s: http or grpc", t.Protocol))
	}
	if t.On && (t.SamplingRate < 0 || t.SamplingRate > 1) {
		r.errs = append(r.errs, fmt.Errorf("TRACING_SAMPLING_RATE=%v: between 0 and 1", t.SamplingRate))
	}
	return t
}
