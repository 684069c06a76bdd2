package settings

import (
	"strings"
	"testing"
)

func TestTracingSettingsHaveUpstreamsNamesAndDefaults(t *testing.T) {
	s, err := Read(from(map[string]string{"TRACING_ENABLED": "true", "TRACING_SERVICE_NAMESPACE": "gw"}))
	if err != nil {
		t.Fatal(err)
	}
	want := Tracing{On: true, Protocol: "http", ServiceName: "RateLimit", Namespace: "gw", SamplingRate: 1}
	if s.Tracing != want {
		t.Fatalf("tracing %+v, want %+v", s.Tracing, want)
	}
}

func TestBadTracingSettingsAreRefusedByName(t *testing.T) {
	for name, value := range map[string]string{"TRACING_EXPORTER_PROTOCOL": "zipkin", "TRACING_SAMPLING_RATE": "1.5"} {
		if _, err := Read(from(map[string]string{"TRACING_ENABLED": "true", name: value})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v", name, value, err)
		}
	}
}

func TestTracingSettingsAreNotCheckedWhileTracingIsOff(t *testing.T) {
	if _, err := Read(from(map[string]string{"TRACING_EXPORTER_PROTOCOL": "zipkin", "TRACING_SAMPLING_RATE": "1.5"})); err != nil {
		t.Fatal(err)
	}
}
