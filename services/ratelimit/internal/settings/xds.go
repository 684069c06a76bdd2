package settings

import (
	"fmt"
	"strings"
	"time"
)

// The two configuration sources, as CONFIG_TYPE names them.
const (
	ConfigFile = "FILE"
	ConfigXDS  = "GRPC_XDS_SOTW"
)

// XDS are upstream's CONFIG_GRPC_XDS_* and XDS_CLIENT_* settings: where the xDS management
// server is and how to reach it. They are read whatever CONFIG_TYPE is, as upstream reads
// them, and used only with GRPC_XDS_SOTW.
type XDS struct {
	ServerURL string // CONFIG_GRPC_XDS_SERVER_URL
	NodeID    string // CONFIG_GRPC_XDS_NODE_ID
	// NodeMetadata is CONFIG_GRPC_XDS_NODE_METADATA: "k1=v1,k2=v2", sent in the Node.
	NodeMetadata map[string]string
	// Headers is CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS: "k1:v1,k2:v2", sent as gRPC
	// metadata on the stream.
	Headers map[string]string
	// ConnectRetry is CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: how often a connection
	// is tried while the server cannot be reached.
	ConnectRetry time.Duration
	UseTLS       bool   // CONFIG_GRPC_XDS_SERVER_USE_TLS
	TLSCert      string // CONFIG_GRPC_XDS_CLIENT_TLS_CERT
	TLSKey       string // CONFIG_GRPC_XDS_CLIENT_TLS_KEY
	TLSCACert    string // CONFIG_GRPC_XDS_SERVER_TLS_CACERT
	TLSSAN       string // CONFIG_GRPC_XDS_SERVER_TLS_SAN: the name the server's certificate must bear
	// Backoff is XDS_CLIENT_BACKOFF_*: the wait before a broken stream is opened again.
	Backoff Backoff
	// MaxMsgSize is XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES; 0 keeps gRPC's 4 MiB.
	MaxMsgSize int
}

// Backoff grows from Initial to Max, doubling after each failed stream; with Jitter each
// wait is moved by up to RandomFactor of itself either way, so replicas do not reconnect in
// step.
type Backoff struct {
	Initial, Max time.Duration
	RandomFactor float64
	Jitter       bool
}

func (r *reader) xds() XDS {
	x := XDS{
		ServerURL: r.str("CONFIG_GRPC_XDS_SERVER_URL", "localhost:18000"), NodeID: r.str("CONFIG_GRPC_XDS_NODE_ID", "default"),
		NodeMetadata: r.pairs("CONFIG_GRPC_XDS_NODE_METADATA", "="),
		Headers:      r.pairs("CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS", ":"),
		ConnectRetry: r.duration("CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL", 3*time.Second),
		UseTLS:       r.boolean("CONFIG_GRPC_XDS_SERVER_USE_TLS", false),
		TLSCert:      r.str("CONFIG_GRPC_XDS_CLIENT_TLS_CERT", ""), TLSKey: r.str("CONFIG_GRPC_XDS_CLIENT_TLS_KEY", ""),
		TLSCACert: r.str("CONFIG_GRPC_XDS_SERVER_TLS_CACERT", ""), TLSSAN: r.str("CONFIG_GRPC_XDS_SERVER_TLS_SAN", ""),
		Backoff: Backoff{
			Initial:      r.duration("XDS_CLIENT_BACKOFF_INITIAL_INTERVAL", 10*time.Second),
			Max:          r.duration("XDS_CLIENT_BACKOFF_MAX_INTERVAL", 60*time.Second),
			RandomFactor: r.float("XDS_CLIENT_BACKOFF_RANDOM_FACTOR", 0.5),
			Jitter:       r.boolean("XDS_CLIENT_BACKOFF_JITTER", true),
		},
		MaxMsgSize: r.integer("XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES", 0),
	}
	return x
}

// checkXDS refuses xDS settings out of range, when the xDS source is in use.
func (r *reader) checkXDS(x XDS) {
	if x.ConnectRetry <= 0 {
		r.errs = append(r.errs, fmt.Errorf("CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: must be positive, not %v", x.ConnectRetry))
	}
	if x.Backoff.Initial <= 0 || x.Backoff.Max < x.Backoff.Initial {
		r.errs = append(r.errs, fmt.Errorf("XDS_CLIENT_BACKOFF_INITIAL_INTERVAL, XDS_CLIENT_BACKOFF_MAX_INTERVAL: need 0 < %v <= %v",
			x.Backoff.Initial, x.Backoff.Max))
	}
	if f := x.Backoff.RandomFactor; f < 0 || f > 1 {
		r.errs = append(r.errs, fmt.Errorf("XDS_CLIENT_BACKOFF_RANDOM_FACTOR: %v is not between 0 and 1", f))
	}
}

// pairs reads "k1<sep>v1,k2<sep>v2". An entry without sep is refused, where upstream
// drops it: a header or metadata silently missing is what the refusal spares.
func (r *reader) pairs(name, sep string) map[string]string {
	out := map[string]string{}
	v := r.str(name, "")
	if v == "" {
		return out
	}
	for _, entry := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(entry, sep)
		if !ok || k == "" {
			r.errs = append(r.errs, fmt.Errorf("%s: %q is not key%svalue", name, entry, sep))
			continue
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return out
}
