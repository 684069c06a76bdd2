package ipkey

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSpecKeys reads clients/spec/keys.json: the key of each address, and the subnets refused.
func TestSpecKeys(t *testing.T) {
	var spec struct {
		Cases []struct {
			Address    string `json:"address"`
			IPv6Subnet int    `json:"ipv6_subnet"`
			Key        string `json:"key"`
		} `json:"cases"`
		BadSubnets []json.RawMessage `json:"bad_subnets"`
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "spec", "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	for _, c := range spec.Cases {
		if got, err := Of(c.Address, c.IPv6Subnet); err != nil || got != c.Key {
			t.Errorf("%s /%d: %q %v, not %q", c.Address, c.IPv6Subnet, got, err, c.Key)
		}
	}
	for _, raw := range spec.BadSubnets {
		var n int
		if err := json.Unmarshal(raw, &n); err != nil {
			continue // not an int: the parameter's type refuses it
		}
		if err := CheckSubnet(n); err == nil {
			t.Errorf("subnet %d accepted", n)
		}
	}
}
