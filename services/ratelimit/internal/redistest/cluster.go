package redistest

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Cluster is a Redis Cluster of primaries on loopback, made as tests/kit/cluster.py makes
// one: each node with its own --cluster-port, joined by `cli --cluster create`.
type Cluster struct {
	Nodes []*Server
}

// StartCluster starts n primaries of .cache/<name> (Redis 7.0 or later: --cluster-port).
func StartCluster(name string, n int, module bool) (*Cluster, error) {
	c := &Cluster{}
	addrs := []string{}
	for i := 0; i < n; i++ {
		bus, err := FreePort()
		if err != nil {
			c.Close()
			return nil, err
		}
		s, err := Start(name, module, "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(bus),
			"--cluster-node-timeout", "5000")
		if err != nil {
			c.Close()
			return nil, err
		}
		c.Nodes = append(c.Nodes, s)
		addrs = append(addrs, s.Addr())
	}
	cli, err := Bin(name, "cli")
	if err != nil {
		c.Close()
		return nil, err
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	out, err := exec.Command(cli, append(args, "--cluster-replicas", "0", "--cluster-yes")...).CombinedOutput()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("redistest: cli --cluster create: %v\n%s", err, out)
	}
	if err := c.waitReady(cli); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// waitReady waits until every node says cluster_state:ok.
func (c *Cluster) waitReady(cli string) error {
	deadline := time.Now().Add(ReadyTimeout)
	for {
		ok := true
		for _, s := range c.Nodes {
			out, err := exec.Command(cli, "-p", strconv.Itoa(s.Port), "cluster", "info").Output()
			if err != nil || !strings.Contains(string(out), "cluster_state:ok") {
				ok = false
				break
			}
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redistest: the cluster did not become ready in %v", ReadyTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Addrs are the nodes' addresses.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, s := range c.Nodes {
		out[i] = s.Addr()
	}
	return out
}

// Close stops every node.
func (c *Cluster) Close() {
	for _, s := range c.Nodes {
		s.Close()
	}
}
