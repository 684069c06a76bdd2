package config

import (
	"strings"
	"testing"

	rlsconf "github.com/envoyproxy/go-control-plane/ratelimit/config/ratelimit/v3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

func xdsConfig() *rlsconf.RateLimitConfig {
	return &rlsconf.RateLimitConfig{Name: "gw", Domain: "api", Descriptors: []*rlsconf.RateLimitDescriptor{{
		Key: "user", RateLimit: &rlsconf.RateLimitPolicy{Unit: rlsconf.RateLimitUnit_MINUTE, RequestsPerUnit: 3, Name: "per-user"},
	}}}
}

func TestAnXDSResourceIsLoadedAsAFileNamedAfterIt(t *testing.T) {
	c, err := FromXDS([]*rlsconf.RateLimitConfig{xdsConfig()}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !c.HasDomain("api") || len(c.Files) != 1 || c.Files[0] != "gw" {
		t.Fatalf("domains %v, files %v", c.Domains(), c.Files)
	}
}

func TestAnXDSResourceIsRefusedWithAFilesMessage(t *testing.T) {
	cases := map[string]func(*rlsconf.RateLimitConfig){
		"gw: invalid rate limit unit ''":                func(c *rlsconf.RateLimitConfig) { c.Descriptors[0].RateLimit.Unit = rlsconf.RateLimitUnit_UNKNOWN },
		"gw: config error, quota_mode is not supported": func(c *rlsconf.RateLimitConfig) { c.Descriptors[0].QuotaMode = true },
		"gw: config error, metadata":                    func(c *rlsconf.RateLimitConfig) { c.Descriptors[0].Metadata = &structpb.Struct{} },
		"gw: config file cannot have empty domain":      func(c *rlsconf.RateLimitConfig) { c.Domain = "" },
		"gw: config error, ratelimit.config.ratelimit.v3.RateLimitPolicy has fields winlimit-ratelimit does not know": func(c *rlsconf.RateLimitConfig) {
			// A field a newer proto would add (number 99): kept as unknown bytes on decode.
			b, _ := proto.Marshal(c.Descriptors[0].RateLimit)
			b = protowire.AppendVarint(protowire.AppendTag(b, 99, protowire.VarintType), 1)
			policy := &rlsconf.RateLimitPolicy{}
			if err := proto.Unmarshal(b, policy); err != nil {
				panic(err)
			}
			c.Descriptors[0].RateLimit = policy
		},
	}
	for want, spoil := range cases {
		c := xdsConfig()
		spoil(c)
		_, err := FromXDS([]*rlsconf.RateLimitConfig{c}, false)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
}

func TestOneDomainInTwoXDSResourcesIsRefusedUnlessMerged(t *testing.T) {
	other := xdsConfig()
	other.Name, other.Descriptors[0].Key = "gw2", "team"
	if _, err := FromXDS([]*rlsconf.RateLimitConfig{xdsConfig(), other}, false); err == nil ||
		!strings.Contains(err.Error(), "duplicate domain 'api'") {
		t.Fatalf("unmerged: %v", err)
	}
	if _, err := FromXDS([]*rlsconf.RateLimitConfig{xdsConfig(), other}, true); err != nil {
		t.Fatalf("merged: %v", err)
	}
}
