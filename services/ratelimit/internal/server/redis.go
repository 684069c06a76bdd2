package server

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/winlimit/winlimit/services/ratelimit/internal/settings"
)

// redisClient makes the go-redis client REDIS_TYPE, REDIS_URL and REDIS_SOCKET_TYPE describe:
// one server, a cluster from its seed list, or a sentinel group ("master,host:port,...").
// Calls stop at their context's deadline, so REDIS_TIMEOUT bounds them exactly.
func redisClient(s settings.Settings) (redis.UniversalClient, error) {
	user, pass := splitAuth(s.RedisAuth)
	tlsConf, err := redisTLS(s)
	if err != nil {
		return nil, err
	}
	network := strings.ToLower(s.RedisSocketType)
	urls := strings.Split(s.RedisURL, ",")
	switch s.RedisType {
	case "CLUSTER":
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: urls, Username: user, Password: pass, TLSConfig: tlsConf,
			PoolSize: s.RedisPoolSize, ContextTimeoutEnabled: true}), nil
	case "SENTINEL":
		if len(urls) < 2 {
			return nil, fmt.Errorf("REDIS_URL: sentinel needs \"master,host:port[,host:port...]\", not %q", s.RedisURL)
		}
		return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: urls[0], SentinelAddrs: urls[1:], Username: user,
			Password: pass, SentinelPassword: s.RedisSentinelAuth, TLSConfig: tlsConf, PoolSize: s.RedisPoolSize,
			ContextTimeoutEnabled: true}), nil
	}
	return redis.NewClient(&redis.Options{Network: network, Addr: s.RedisURL, Username: user, Password: pass,
		TLSConfig: tlsConf, PoolSize: s.RedisPoolSize, ContextTimeoutEnabled: true}), nil
}

// splitAuth reads REDIS_AUTH: "password", or "user:password" as upstream reads it.
func splitAuth(auth string) (user, pass string) {
	if u, p, ok := strings.Cut(auth, ":"); ok {
		return u, p
	}
	return "", auth
}

func redisTLS(s settings.Settings) (*tls.Config, error) {
	if !s.RedisTLS {
		return nil, nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: s.RedisTLSSkipVerify} //nolint:gosec // REDIS_TLS_SKIP_HOSTNAME_VERIFICATION asks for it
	if err := loadTLSFiles(conf, tlsFiles{caSetting: "REDIS_TLS_CACERT", ca: s.RedisTLSCACert,
		certSetting: "REDIS_TLS_CLIENT_CERT", cert: s.RedisTLSCert, key: s.RedisTLSKey}); err != nil {
		return nil, err
	}
	return conf, nil
}

// tlsFiles are a client's CA and certificate files, with the settings naming them for the
// errors.
type tlsFiles struct {
	caSetting, ca          string
	certSetting, cert, key string
}

// loadTLSFiles reads the CA into conf's roots and the certificate and key into its
// certificates, each only when given.
func loadTLSFiles(conf *tls.Config, f tlsFiles) error {
	if f.ca != "" {
		pem, err := os.ReadFile(f.ca)
		if err != nil {
			return fmt.Errorf("%s: %w", f.caSetting, err)
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%s: no certificate in %s", f.caSetting, f.ca)
		}
	}
	if f.cert != "" {
		cert, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return fmt.Errorf("%s: %w", f.certSetting, err)
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	return nil
}
