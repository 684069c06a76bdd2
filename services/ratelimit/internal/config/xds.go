package config

import (
	rlsconf "github.com/envoyproxy/go-control-plane/ratelimit/config/ratelimit/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// FromXDS builds a configuration from the RateLimitConfig resources an xDS server sent, each
// read as one file named after the resource, so a resource is checked by the rules a file
// is and its errors read the same ("<name>: config error, ...").
func FromXDS(resources []*rlsconf.RateLimitConfig, merge bool) (*Config, error) {
	c := &Config{domains: map[string]*node{}}
	for _, res := range resources {
		name := res.GetName()
		if name == "" {
			name = res.GetDomain()
		}
		if err := refuseUnread(name, res); err != nil {
			return nil, err
		}
		root, err := rootFromXDS(name, res)
		if err != nil {
			return nil, err
		}
		if err := c.loadRoot(name, root, merge); err != nil {
			return nil, err
		}
		c.Files = append(c.Files, name)
	}
	return c, nil
}

func rootFromXDS(name string, res *rlsconf.RateLimitConfig) (*yamlRoot, error) {
	descriptors, err := descriptorsFromXDS(name, res.GetDescriptors())
	if err != nil {
		return nil, err
	}
	return &yamlRoot{Domain: res.GetDomain(), Descriptors: descriptors}, nil
}

func descriptorsFromXDS(name string, in []*rlsconf.RateLimitDescriptor) ([]yamlDescriptor, error) {
	out := make([]yamlDescriptor, len(in))
	for i, d := range in {
		// The same refusals a file's keys get: a deployment relying on them learns it now.
		if d.GetQuotaMode() {
			return nil, errorf(name, "config error, %s", refusedKeys["quota_mode"])
		}
		if d.GetMetadata() != nil {
			return nil, errorf(name, "config error, %s", refusedKeys["metadata"])
		}
		children, err := descriptorsFromXDS(name, d.GetDescriptors())
		if err != nil {
			return nil, err
		}
		out[i] = yamlDescriptor{Key: d.GetKey(), Value: d.GetValue(), RateLimit: policyFromXDS(d.GetRateLimit()),
			Descriptors: children, ShadowMode: d.GetShadowMode(), DetailedMetric: d.GetDetailedMetric()}
	}
	return out, nil
}

func policyFromXDS(p *rlsconf.RateLimitPolicy) *yamlRateLimit {
	if p == nil {
		return nil
	}
	y := &yamlRateLimit{RequestsPerUnit: p.GetRequestsPerUnit(), Unlimited: p.GetUnlimited(), Name: p.GetName()}
	// UNKNOWN is the proto's "not given": as a missing unit in a file, not a unit named so.
	if p.GetUnit() != rlsconf.RateLimitUnit_UNKNOWN {
		y.Unit = p.GetUnit().String()
	}
	for _, r := range p.GetReplaces() {
		y.Replaces = append(y.Replaces, yamlReplaces{Name: r.GetName()})
	}
	return y
}

// refuseUnread refuses a resource carrying fields newer than the proto this service was
// built with: proto keeps them as unknown bytes, and reading on without them would drop
// part of the configuration silently.
func refuseUnread(name string, m proto.Message) error {
	var walk func(protoreflect.Message) error
	walk = func(msg protoreflect.Message) error {
		if len(msg.GetUnknown()) > 0 {
			return errorf(name, "config error, %s has fields winlimit-ratelimit does not know", msg.Descriptor().FullName())
		}
		var err error
		msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len() && err == nil; i++ {
					err = walk(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				err = walk(v.Message())
			}
			return err == nil
		})
		return err
	}
	return walk(m.ProtoReflect())
}
