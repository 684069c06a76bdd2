package config

import (
	"strings"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
)

// Match is the rule a request's descriptor falls under.
type Match struct {
	Rule *Rule
	// StatKey names the metrics: the rule's, or the request's values where detailed_metric
	// or value_to_metric asks for them.
	StatKey string
	// KeyValues are the values the counter's key is made of: the request's, or the
	// wildcard pattern where share_threshold makes values share one counter.
	KeyValues []string
}

// walk is the state of one descriptor's descent through the tree.
type walk struct {
	detailed, valued strings.Builder
	shared           map[int]string
}

// Find is upstream's lookup: each entry matches "key_value", else a wildcard of that level,
// else "key" alone; a rule counts only when it sits at the descriptor's last entry.
func (c *Config) Find(domain string, d *rlv3.RateLimitDescriptor) *Match {
	n := c.domains[domain]
	if n == nil {
		return nil
	}
	var w walk
	w.detailed.WriteString(domain)
	w.valued.WriteString(domain)
	var rule *Rule
	entries := d.GetEntries()
	for i, e := range entries {
		next, wildKey, byValue := n.step(e)
		w.record(i, e, next, wildKey, byValue)
		if next != nil && next.rule != nil && i == len(entries)-1 {
			rule = next.rule
		}
		if next == nil || len(next.children) == 0 {
			break
		}
		n = next
	}
	if rule == nil {
		return nil
	}
	return w.match(rule, entries)
}

func (n *node) step(e *rlv3.RateLimitDescriptor_Entry) (next *node, wildKey string, byValue bool) {
	finalKey := e.GetKey() + "_" + e.GetValue()
	if next = n.children[finalKey]; next != nil {
		return next, "", true
	}
	for _, wc := range n.wildcards {
		if wildcardMatch(wc.parts, finalKey) {
			return n.children[wc.key], wc.key, true
		}
	}
	return n.children[e.GetKey()], "", false
}

// record adds one level to the metric keys, as upstream builds them.
func (w *walk) record(i int, e *rlv3.RateLimitDescriptor_Entry, next *node, wildKey string, byValue bool) {
	w.detailed.WriteString("." + e.GetKey() + "_" + e.GetValue())
	w.valued.WriteString("." + e.GetKey())
	if next == nil {
		return
	}
	value := ""
	switch {
	case wildKey != "" && next.shareThreshold:
		value = strings.TrimPrefix(next.pattern, e.GetKey()+"_")
		if w.shared == nil {
			w.shared = map[int]string{}
		}
		w.shared[i] = value
	case wildKey != "" && next.valueToMetric:
		value = e.GetValue()
	case wildKey != "":
		value = strings.TrimPrefix(wildKey, e.GetKey()+"_")
	case byValue || next.valueToMetric:
		value = e.GetValue()
	}
	if value != "" {
		w.valued.WriteString("_" + value)
	}
}

func (w *walk) match(rule *Rule, entries []*rlv3.RateLimitDescriptor_Entry) *Match {
	m := &Match{Rule: rule, StatKey: rule.StatKey, KeyValues: make([]string, len(entries))}
	for i, e := range entries {
		m.KeyValues[i] = e.GetValue()
		if p, ok := w.shared[i]; ok {
			m.KeyValues[i] = p
		}
	}
	switch {
	case rule.DetailedMetric && len(w.shared) > 0:
		m.StatKey = sharedStatKey(entries, m.KeyValues, w.shared, rule.StatKey)
	case rule.DetailedMetric:
		m.StatKey = w.detailed.String()
	default:
		m.StatKey = w.valued.String()
	}
	return m
}

func sharedStatKey(entries []*rlv3.RateLimitDescriptor_Entry, values []string, shared map[int]string, ruleKey string) string {
	var b strings.Builder
	b.WriteString(ruleKey[:strings.Index(ruleKey, ".")])
	for i, e := range entries {
		b.WriteString("." + e.GetKey())
		if values[i] != "" {
			b.WriteString("_" + values[i])
		}
	}
	return b.String()
}
