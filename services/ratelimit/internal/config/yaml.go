// Package config reads envoyproxy/ratelimit's YAML files: the same keys, checked the same
// way, with upstream's kind of error messages, plus winlimit's own keys.
package config

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Error is a configuration error naming the file it came from, as upstream words it:
// "<file>: <what>".
type Error string

func (e Error) Error() string { return string(e) }

func errorf(file, format string, args ...any) Error {
	return Error(file + ": " + fmt.Sprintf(format, args...))
}

type yamlReplaces struct {
	Name string `yaml:"name"`
}

type yamlRateLimit struct {
	RequestsPerUnit uint32         `yaml:"requests_per_unit"`
	Unit            string         `yaml:"unit"`
	Unlimited       bool           `yaml:"unlimited"`
	Name            string         `yaml:"name"`
	Replaces        []yamlReplaces `yaml:"replaces"`
	// winlimit's own keys.
	Algorithm      string `yaml:"algorithm"`
	Burst          int64  `yaml:"burst"`
	UnitMultiplier int64  `yaml:"unit_multiplier"`
	Window         string `yaml:"window"`
	Block          string `yaml:"block"`
}

type yamlDescriptor struct {
	Key            string           `yaml:"key"`
	Value          string           `yaml:"value"`
	RateLimit      *yamlRateLimit   `yaml:"rate_limit"`
	RateLimits     []*yamlRateLimit `yaml:"rate_limits"`
	Descriptors    []yamlDescriptor `yaml:"descriptors"`
	ShadowMode     bool             `yaml:"shadow_mode"`
	DetailedMetric bool             `yaml:"detailed_metric"`
	ValueToMetric  bool             `yaml:"value_to_metric"`
	ShareThreshold bool             `yaml:"share_threshold"`
}

type yamlRoot struct {
	Domain      string           `yaml:"domain"`
	Descriptors []yamlDescriptor `yaml:"descriptors"`
}

// validKeys are upstream's keys winlimit implements, and winlimit's own.
var validKeys = map[string]bool{
	"domain": true, "key": true, "value": true, "descriptors": true, "rate_limit": true,
	"unit": true, "requests_per_unit": true, "unlimited": true, "shadow_mode": true,
	"name": true, "replaces": true, "detailed_metric": true, "value_to_metric": true,
	"share_threshold": true, "quota_mode": true, // quota_mode only false: true is refused below
	"algorithm": true, "burst": true, "unit_multiplier": true, "window": true, "block": true, "rate_limits": true,
}

// refusedKeys are upstream's keys winlimit does not implement: refused by name rather than
// silently ignored, so a deployment relying on them finds out at start. A key written as
// false asks for nothing and is accepted.
var refusedKeys = map[string]string{
	"quota_mode": "quota_mode is not supported by winlimit-ratelimit",
	"metadata":   "metadata (RESPONSE_DYNAMIC_METADATA) is not supported by winlimit-ratelimit",
}

// parseFile checks a file's keys as upstream does, then decodes it.
func parseFile(file string, content []byte) (*yamlRoot, error) {
	var generic any
	if err := yaml.Unmarshal(content, &generic); err != nil {
		return nil, errorf(file, "error loading config file: %s", err)
	}
	if generic != nil {
		m, ok := generic.(map[string]any)
		if !ok {
			return nil, errorf(file, "error loading config file: the file is not a map")
		}
		if err := validateKeys(file, m); err != nil {
			return nil, err
		}
	}
	var root yamlRoot
	if err := yaml.Unmarshal(content, &root); err != nil {
		return nil, errorf(file, "error loading config file: %s", err)
	}
	return &root, nil
}

func validateKeys(file string, m map[string]any) error {
	for k, v := range m {
		if why, refused := refusedKeys[k]; refused && v != false {
			return errorf(file, "config error, %s", why)
		}
		if !validKeys[k] {
			return errorf(file, "config error, unknown key '%s'", k)
		}
		if err := validateValue(file, v); err != nil {
			return err
		}
	}
	return nil
}

func validateValue(file string, v any) error {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			element, ok := e.(map[string]any)
			if !ok {
				return errorf(file, "config error, yaml file contains list of type other than map: %v", e)
			}
			if err := validateKeys(file, element); err != nil {
				return err
			}
		}
	case map[string]any:
		return validateKeys(file, v)
	case map[any]any:
		return errorf(file, "config error, key is not of type string: %v", v)
	case string, int, bool, nil:
	default:
		return errorf(file, "error checking config")
	}
	return nil
}
