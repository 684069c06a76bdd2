package redistest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// Proxy forwards loopback connections to a server. MuteOpen makes the connections open now
// pass the requests on but drop the replies, so a call on them runs on the server and then
// times out, while a connection opened later works: what a retry would use.
type Proxy struct {
	Addr   string
	target string
	l      net.Listener
	mu     sync.Mutex
	conns  []*proxied
}

type proxied struct {
	client, server net.Conn
	muted          atomic.Bool
}

// NewProxy listens on a free loopback port and forwards to target.
func NewProxy(target string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{Addr: l.Addr().String(), target: target, l: l}
	go p.serve()
	return p, nil
}

// MuteOpen drops the server's replies on every connection open now.
func (p *Proxy) MuteOpen() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.muted.Store(true)
	}
}

func (p *Proxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		pc := &proxied{client: c, server: s}
		p.mu.Lock()
		p.conns = append(p.conns, pc)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
		go pc.replies()
	}
}

func (pc *proxied) replies() {
	defer pc.client.Close()
	buf := make([]byte, 32*1024)
	for {
		n, err := pc.server.Read(buf)
		if n > 0 && !pc.muted.Load() {
			if _, werr := pc.client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Close stops listening and closes every connection.
func (p *Proxy) Close() {
	_ = p.l.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.client.Close()
		_ = c.server.Close()
	}
}
