package settings

import (
	"strings"
	"testing"
	"time"
)

func from(vars map[string]string) env {
	return func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
}

func TestXDSSettingsHaveUpstreamsNamesAndDefaults(t *testing.T) {
	s, err := Read(from(map[string]string{"CONFIG_TYPE": "grpc_xds_sotw",
		"CONFIG_GRPC_XDS_NODE_METADATA": "zone=a,team=b", "CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS": "x-token:t1"}))
	if err != nil {
		t.Fatal(err)
	}
	x := s.XDS
	if s.ConfigType != ConfigXDS || x.ServerURL != "localhost:18000" || x.NodeID != "default" || x.ConnectRetry != 3*time.Second {
		t.Fatalf("defaults: %s %+v", s.ConfigType, x)
	}
	if x.NodeMetadata["zone"] != "a" || x.NodeMetadata["team"] != "b" || x.Headers["x-token"] != "t1" {
		t.Fatalf("pairs: %v %v", x.NodeMetadata, x.Headers)
	}
	if x.Backoff != (Backoff{Initial: 10 * time.Second, Max: time.Minute, RandomFactor: 0.5, Jitter: true}) {
		t.Fatalf("backoff: %+v", x.Backoff)
	}
}

func TestBadXDSSettingsAreRefusedByName(t *testing.T) {
	for name, value := range map[string]string{"CONFIG_TYPE": "REST", "CONFIG_GRPC_XDS_NODE_METADATA": "zone",
		"CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL": "0s", "XDS_CLIENT_BACKOFF_MAX_INTERVAL": "1s",
		"XDS_CLIENT_BACKOFF_RANDOM_FACTOR": "2"} {
		if _, err := Read(from(map[string]string{"CONFIG_TYPE": ConfigXDS, name: value})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v", name, value, err)
		}
	}
}

func TestXDSRangesAreNotCheckedWhileTheFilesAreTheSource(t *testing.T) {
	if _, err := Read(from(map[string]string{"XDS_CLIENT_BACKOFF_RANDOM_FACTOR": "2"})); err != nil {
		t.Fatal(err)
	}
}
