package server

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/winlimit/winlimit/services/ratelimit/internal/settings"
)

// grpcServerOptions are the gRPC server's: TLS when GRPC_SERVER_USE_TLS is set.
func grpcServerOptions(s settings.GRPCTLS) ([]grpc.ServerOption, error) {
	if !s.On {
		return nil, nil
	}
	certs := &reloadingCert{certFile: s.Cert, keyFile: s.Key}
	if _, err := certs.get(nil); err != nil {
		return nil, fmt.Errorf("GRPC_SERVER_TLS_CERT: %w", err)
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: certs.get}
	if s.ClientCACert != "" {
		pem, err := os.ReadFile(s.ClientCACert)
		if err != nil {
			return nil, fmt.Errorf("GRPC_CLIENT_TLS_CACERT: %w", err)
		}
		conf.ClientCAs = x509.NewCertPool()
		if !conf.ClientCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("GRPC_CLIENT_TLS_CACERT: no certificate in %s", s.ClientCACert)
		}
		conf.ClientAuth = tls.RequireAndVerifyClientCert
		if s.ClientSAN != "" {
			conf.VerifyPeerCertificate = clientNamed(s.ClientSAN)
		}
	}
	return []grpc.ServerOption{grpc.Creds(credentials.NewTLS(conf))}, nil
}

// clientNamed refuses a client whose verified certificate does not bear name
// (GRPC_CLIENT_TLS_SAN), checked as upstream checks it: as a DNS name or an IP.
func clientNamed(name string) func([][]byte, [][]*x509.Certificate) error {
	return func(_ [][]byte, chains [][]*x509.Certificate) error {
		for _, chain := range chains {
			if len(chain) > 0 && chain[0].VerifyHostname(name) == nil {
				return nil
			}
		}
		return fmt.Errorf("the client certificate is not for %q (GRPC_CLIENT_TLS_SAN)", name)
	}
}

// reloadingCert reads the certificate again when its files change, as upstream's does: a
// Kubernetes secret is rotated in place, and the service must not need a restart for it.
type reloadingCert struct {
	certFile, keyFile string

	mu       sync.Mutex
	modified [2]time.Time
	cert     *tls.Certificate
}

func (r *reloadingCert) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	var modified [2]time.Time
	for i, f := range []string{r.certFile, r.keyFile} {
		info, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		modified[i] = info.ModTime()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cert != nil && modified == r.modified {
		return r.cert, nil
	}
	cert, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		if r.cert != nil {
			return r.cert, nil // half-written during a rotation: keep serving the old one
		}
		return nil, err
	}
	r.cert, r.modified = &cert, modified
	return r.cert, nil
}
