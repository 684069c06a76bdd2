package itest

import (
	"context"
	"crypto/tls"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	serverv3 "github.com/envoyproxy/go-control-plane/pkg/server/v3"
	rlsconf "github.com/envoyproxy/go-control-plane/ratelimit/config/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// xdsNode is the node ID the service subscribes as, and the test server keys snapshots on.
const xdsNode = "winlimit-test"

// xdsServer is a go-control-plane management server in the test process, serving rate limit
// configuration from a snapshot cache as Envoy Gateway serves its rate limit deployment.
type xdsServer struct {
	addr    string
	cache   cachev3.SnapshotCache
	version int
	stop    func() // ends the server; listen starts it again on the same port

	mu    sync.Mutex
	acked []string // versions the service ACKed
	nacks []string // the error details of its NACKs
}

// startXDS serves on a free loopback port; opts are the gRPC server's (its TLS).
func startXDS(t *testing.T, opts ...grpc.ServerOption) *xdsServer {
	t.Helper()
	x := &xdsServer{cache: cachev3.NewSnapshotCache(false, cachev3.IDHash{}, nil), addr: "127.0.0.1:0"}
	x.listen(t, opts...)
	return x
}

// listen serves x's cache on x.addr until the test ends or stop is called.
func (x *xdsServer) listen(t *testing.T, opts ...grpc.ServerOption) {
	t.Helper()
	callbacks := serverv3.CallbackFuncs{StreamRequestFunc: func(_ int64, req *discoveryv3.DiscoveryRequest) error {
		x.mu.Lock()
		defer x.mu.Unlock()
		switch {
		case req.GetErrorDetail() != nil:
			x.nacks = append(x.nacks, req.GetErrorDetail().GetMessage())
		case req.GetResponseNonce() != "":
			x.acked = append(x.acked, req.GetVersionInfo())
		}
		return nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	g := grpc.NewServer(opts...)
	discoveryv3.RegisterAggregatedDiscoveryServiceServer(g, serverv3.NewServer(ctx, x.cache, callbacks))
	l, err := net.Listen("tcp", x.addr)
	if err != nil {
		t.Fatal(err)
	}
	x.addr = l.Addr().String()
	go func() { _ = g.Serve(l) }()
	x.stop = func() { g.Stop(); cancel() }
	t.Cleanup(x.stop)
}

// set serves configs as the next version, and gives that version.
func (x *xdsServer) set(t *testing.T, configs ...*rlsconf.RateLimitConfig) string {
	t.Helper()
	version, err := x.serve(configs...)
	if err != nil {
		t.Fatal(err)
	}
	return version
}

// serve is set without a test, for a goroutine.
func (x *xdsServer) serve(configs ...*rlsconf.RateLimitConfig) (string, error) {
	x.version++
	version := strconv.Itoa(x.version)
	resources := make([]types.Resource, len(configs))
	for i, c := range configs {
		resources[i] = c
	}
	snap, err := cachev3.NewSnapshot(version, map[resourcev3.Type][]types.Resource{resourcev3.RateLimitConfigType: resources})
	if err != nil {
		return "", err
	}
	return version, x.cache.SetSnapshot(context.Background(), xdsNode, snap)
}

// waitAcked waits until the service ACKed version.
func (x *xdsServer) waitAcked(t *testing.T, version string) {
	t.Helper()
	x.wait(t, "an ACK of version "+version, func() bool { return contains(x.acked, version) })
}

// waitNacked waits until the service NACKed with a message saying why.
func (x *xdsServer) waitNacked(t *testing.T, why string) {
	t.Helper()
	x.wait(t, "a NACK saying "+why, func() bool {
		for _, m := range x.nacks {
			if strings.Contains(m, why) {
				return true
			}
		}
		return false
	})
}

func (x *xdsServer) wait(t *testing.T, what string, done func() bool) {
	t.Helper()
	if !x.poll(done) {
		x.mu.Lock()
		defer x.mu.Unlock()
		t.Fatalf("no %s within %v: ACKs %v, NACKs %q", what, readyWithin, x.acked, x.nacks)
	}
}

// poll is true once done is, false if it is not within readyWithin.
func (x *xdsServer) poll(done func() bool) bool {
	deadline := time.Now().Add(readyWithin)
	for {
		x.mu.Lock()
		ok := done()
		x.mu.Unlock()
		if ok || time.Now().After(deadline) {
			return ok
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// xdsSettings point the service at x, retrying fast so a test does not wait on upstream's
// 3 s and 10 s defaults.
func (x *xdsServer) settings() env {
	return env{"CONFIG_TYPE": "GRPC_XDS_SOTW", "CONFIG_GRPC_XDS_SERVER_URL": x.addr, "CONFIG_GRPC_XDS_NODE_ID": xdsNode,
		"CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL": "100ms", "XDS_CLIENT_BACKOFF_INITIAL_INTERVAL": "100ms"}
}

// perMinuteXDS is domain api, key user, n requests a minute, as Envoy Gateway sends a rule.
func perMinuteXDS(n uint32) *rlsconf.RateLimitConfig {
	return &rlsconf.RateLimitConfig{Name: "api", Domain: "api", Descriptors: []*rlsconf.RateLimitDescriptor{{
		Key: "user", RateLimit: &rlsconf.RateLimitPolicy{Unit: rlsconf.RateLimitUnit_MINUTE, RequestsPerUnit: n},
	}}}
}

func TestXDSConfigurationIsAppliedUpdatedAndABadUpdateIsRefusedWhileTheOldLimitHolds(t *testing.T) {
	x := startXDS(t)
	first := x.set(t, perMinuteXDS(3))
	s := startRLS(t, moduleEdition.url(t), nil, x.settings())
	x.waitAcked(t, first)
	user := request("api", entries("user", "u"))
	inOneWindow(t, moduleEdition.url(t), time.Minute, 5*time.Second, func() error {
		return s.sequence(t, []step{
			{user, ok, []want{{code: ok, remaining: 2, perUnit: 3}}},
			{user, ok, []want{{code: ok, remaining: 1, perUnit: 3}}},
		})
	})

	x.waitAcked(t, x.set(t, perMinuteXDS(7)))
	if got := s.ask(t, user).GetStatuses()[0].GetCurrentLimit().GetRequestsPerUnit(); got != 7 {
		t.Fatalf("after the update the limit is %d a minute, want 7", got)
	}

	bad := perMinuteXDS(1)
	bad.Descriptors[0].RateLimit.Unit = rlsconf.RateLimitUnit_UNKNOWN
	x.set(t, bad)
	x.waitNacked(t, "api: invalid rate limit unit ''")
	if got := s.ask(t, user).GetStatuses()[0].GetCurrentLimit().GetRequestsPerUnit(); got != 7 {
		t.Fatalf("after the refused update the limit is %d a minute, want 7 still", got)
	}
	s.waitLog(t, "NACKed, the last good configuration stays in force")
}

func TestXDSQuotaModeIsRefusedByNameAndTheServiceWaitsForAGoodConfiguration(t *testing.T) {
	x := startXDS(t)
	quota := perMinuteXDS(3)
	quota.Descriptors[0].QuotaMode = true
	x.set(t, quota)
	// Fixed only after the NACK: until then the service must not listen, as upstream waits
	// for its first configuration.
	fixed := make(chan string, 1)
	go func() {
		x.poll(func() bool { return len(x.nacks) > 0 })
		time.Sleep(200 * time.Millisecond)
		version, _ := x.serve(perMinuteXDS(5)) // an error shows as no ACK below
		fixed <- version
	}()
	s := startRLS(t, moduleEdition.url(t), nil, x.settings())
	x.waitNacked(t, "api: config error, quota_mode is not supported by winlimit-ratelimit")
	x.waitAcked(t, <-fixed)
	expect(t, "the good configuration", s.ask(t, request("api", entries("user", "u"))), ok, want{code: ok, remaining: 4, perUnit: 5})
}

func TestXDSWithForceStartAnswersAnErrorUntilTheFirstConfiguration(t *testing.T) {
	x := startXDS(t)
	settings := x.settings()
	settings["FORCE_START_WITHOUT_INITIAL_CONFIG"] = "true"
	s := startRLS(t, moduleEdition.url(t), nil, settings)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.client.ShouldRateLimit(ctx, request("api", entries("user", "u"))); err == nil ||
		!strings.Contains(err.Error(), "no rate limit configuration loaded") {
		t.Fatalf("before any configuration: %v", err)
	}
	x.waitAcked(t, x.set(t, perMinuteXDS(3)))
	expect(t, "after the first configuration", s.ask(t, request("api", entries("user", "u"))), ok, want{code: ok, remaining: 2, perUnit: 3})
}

func TestXDSOverMutualTLSAsEnvoyGatewayServesIt(t *testing.T) {
	pki := newPKI(t)
	serverCert := pki.issue(t, "envoy-gateway.test")
	pki.issue(t, "ratelimit.test")
	x := startXDS(t, grpc.Creds(credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12,
		Certificates: []tls.Certificate{serverCert}, ClientCAs: pki.pool, ClientAuth: tls.RequireAndVerifyClientCert})))
	version := x.set(t, perMinuteXDS(3))
	settings := x.settings()
	for k, v := range map[string]string{"CONFIG_GRPC_XDS_SERVER_USE_TLS": "true",
		"CONFIG_GRPC_XDS_CLIENT_TLS_CERT": pki.path("ratelimit.test.crt"), "CONFIG_GRPC_XDS_CLIENT_TLS_KEY": pki.path("ratelimit.test.key"),
		"CONFIG_GRPC_XDS_SERVER_TLS_CACERT": pki.path("ca.crt"), "CONFIG_GRPC_XDS_SERVER_TLS_SAN": "envoy-gateway.test"} {
		settings[k] = v
	}
	s := startRLS(t, moduleEdition.url(t), nil, settings)
	x.waitAcked(t, version)
	expect(t, "over mutual TLS", s.ask(t, request("api", entries("user", "u"))), ok, want{code: ok, remaining: 2, perUnit: 3})
}

func TestXDSServerRestartedTheServiceSubscribesAgainAndKeepsItsLimitMeanwhile(t *testing.T) {
	x := startXDS(t)
	first := x.set(t, perMinuteXDS(3))
	s := startRLS(t, moduleEdition.url(t), nil, x.settings())
	x.waitAcked(t, first)
	user := request("api", entries("user", "u"))
	x.stop()
	s.waitLog(t, "the xDS stream failed")
	expect(t, "while the server is down", s.ask(t, user), ok, want{code: ok, remaining: 2, perUnit: 3})
	x.listen(t)
	x.waitAcked(t, x.set(t, perMinuteXDS(9)))
	if got := s.ask(t, user).GetStatuses()[0].GetCurrentLimit().GetRequestsPerUnit(); got != 9 {
		t.Fatalf("after the server came back the limit is %d a minute, want 9", got)
	}
}
