package config

import (
	"sort"
	"strings"
)

type wildcard struct {
	key   string   // "key_value*"
	parts []string // split on "*"
}

type node struct {
	children       map[string]*node
	rule           *Rule
	wildcards      []wildcard
	valueToMetric  bool
	shareThreshold bool
	pattern        string // the wildcard key when share_threshold
}

func newNode() *node { return &node{children: map[string]*node{}} }

// Config is every domain's descriptor tree.
type Config struct {
	domains map[string]*node
	Files   []string
}

// File is one configuration file's name and content.
type File struct {
	Name    string
	Content []byte
}

// Load builds a configuration from files, as upstream does: a domain in two files is an
// error unless merge is set.
func Load(files []File, merge bool) (*Config, error) {
	c := &Config{domains: map[string]*node{}}
	for _, f := range files {
		root, err := parseFile(f.Name, f.Content)
		if err != nil {
			return nil, err
		}
		if err := c.loadRoot(f.Name, root, merge); err != nil {
			return nil, err
		}
		c.Files = append(c.Files, f.Name)
	}
	return c, nil
}

func (c *Config) loadRoot(file string, root *yamlRoot, merge bool) error {
	if root.Domain == "" {
		return errorf(file, "config file cannot have empty domain")
	}
	domain, present := c.domains[root.Domain]
	if present && !merge {
		return errorf(file, "duplicate domain '%s' in config file", root.Domain)
	}
	if !present {
		domain = newNode()
		c.domains[root.Domain] = domain
	}
	return domain.load(file, root.Domain+".", root.Descriptors)
}

func (n *node) load(file, parentKey string, descriptors []yamlDescriptor) error {
	for i := range descriptors {
		d := &descriptors[i]
		if d.Key == "" {
			return errorf(file, "descriptor has empty key")
		}
		finalKey := d.Key
		if d.Value != "" {
			finalKey += "_" + d.Value
		}
		statKey := parentKey + finalKey
		if _, dup := n.children[finalKey]; dup {
			return errorf(file, "duplicate descriptor composite key '%s'", statKey)
		}
		rule, err := buildRule(file, statKey, d)
		if err != nil {
			return err
		}
		hasWildcard := strings.Contains(finalKey, "*")
		if d.ShareThreshold && !hasWildcard {
			return errorf(file, "share_threshold can only be used with wildcard values (containing '*'), but found key '%s'", finalKey)
		}
		child := newNode()
		child.rule, child.valueToMetric, child.shareThreshold = rule, d.ValueToMetric, d.ShareThreshold
		if d.ShareThreshold {
			child.pattern = finalKey
		}
		if hasWildcard {
			n.wildcards = append(n.wildcards, wildcard{key: finalKey, parts: strings.Split(finalKey, "*")})
		}
		if err := child.load(file, statKey+".", d.Descriptors); err != nil {
			return err
		}
		n.children[finalKey] = child
	}
	return nil
}

// Domains lists the configured domains, sorted.
func (c *Config) Domains() []string {
	out := make([]string, 0, len(c.domains))
	for d := range c.domains {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// HasDomain is true when a file defines domain.
func (c *Config) HasDomain(domain string) bool { return c.domains[domain] != nil }

// wildcardMatch: each '*' matches any run of characters, as upstream's matcher.
func wildcardMatch(parts []string, value string) bool {
	if len(parts) == 1 {
		return parts[0] == value
	}
	first, last := parts[0], parts[len(parts)-1]
	if !strings.HasPrefix(value, first) || !strings.HasSuffix(value, last) || len(value) < len(first)+len(last) {
		return false
	}
	rest := value[len(first) : len(value)-len(last)]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, part)
		if i < 0 {
			return false
		}
		rest = rest[i+len(part):]
	}
	return true
}
