package itest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	pb "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// testPKI is a CA and the certificates it signed, as files and as loaded pairs.
type testPKI struct {
	dir  string
	ca   *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir(), pool: x509.NewCertPool()}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "winlimit test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	p.ca, p.key = p.sign(t, "ca", tmpl, nil)
	p.pool.AddCert(p.ca)
	return p
}

// issue signs a certificate for name (a DNS SAN), usable by a server and a client alike.
func (p *testPKI) issue(t *testing.T, name string) tls.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		DNSNames: []string{name}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	p.sign(t, name, tmpl, p.ca)
	pair, err := tls.LoadX509KeyPair(p.path(name+".crt"), p.path(name+".key"))
	if err != nil {
		t.Fatal(err)
	}
	return pair
}

// sign makes a key and a certificate from tmpl, signed by parent (itself when nil), and
// writes both as PEM files named after name.
func (p *testPKI) sign(t *testing.T, name string, tmpl, parent *x509.Certificate) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer := key
	if parent == nil {
		parent = tmpl
	} else {
		signer = p.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	p.write(t, name+".crt", "CERTIFICATE", der)
	p.write(t, name+".key", "EC PRIVATE KEY", keyDER)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func (p *testPKI) write(t *testing.T, name, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(p.path(name), pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (p *testPKI) path(name string) string { return filepath.Join(p.dir, name) }

// tlsClient asks s over TLS as the holder of cert, trusting pki's CA for serverName.
func (s *rls) tlsClient(t *testing.T, pki *testPKI, cert tls.Certificate, serverName string) pb.RateLimitServiceClient {
	t.Helper()
	creds := credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pki.pool,
		Certificates: []tls.Certificate{cert}, ServerName: serverName})
	conn, err := grpc.NewClient(s.grpcAddr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return pb.NewRateLimitServiceClient(conn)
}

func TestTheGRPCPortServesMutualTLSAndVerifiesTheClientsName(t *testing.T) {
	pki := newPKI(t)
	pki.issue(t, "ratelimit.test")
	envoy, stranger := pki.issue(t, "envoy.test"), pki.issue(t, "stranger.test")
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perMinute}, env{"GRPC_SERVER_USE_TLS": "true",
		"GRPC_SERVER_TLS_CERT": pki.path("ratelimit.test.crt"), "GRPC_SERVER_TLS_KEY": pki.path("ratelimit.test.key"),
		"GRPC_CLIENT_TLS_CACERT": pki.path("ca.crt"), "GRPC_CLIENT_TLS_SAN": "envoy.test"})
	req := request("api", entries("user", "u"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := s.tlsClient(t, pki, envoy, "ratelimit.test").ShouldRateLimit(ctx, req)
	if err != nil {
		t.Fatalf("the named client: %v", err)
	}
	expect(t, "the named client", resp, ok, want{code: ok, remaining: 2, perUnit: 3})
	if _, err := s.tlsClient(t, pki, stranger, "ratelimit.test").ShouldRateLimit(ctx, req); err == nil {
		t.Fatal("a client certificate for another name was accepted")
	}
	if _, err := s.client.ShouldRateLimit(ctx, req); err == nil {
		t.Fatal("a plaintext client was answered")
	}
}
