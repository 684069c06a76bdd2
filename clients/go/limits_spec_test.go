package winlimit

import (
	"os"
	"path/filepath"
	"testing"
)

// clients/spec/limits.json (every bound and error text of the module's parsers) comes from
// another branch; once it is in the tree, the memory limiter must give every answer.
func TestSpecLimitsOfTheMemoryLimiter(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "spec", "limits.json")); os.IsNotExist(err) {
		t.Log("clients/spec/limits.json is not in this tree yet")
		return
	}
	var spec struct {
		Cases []struct {
			Name    string   `json:"name"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
			Error   *string  `json:"error"`
		} `json:"cases"`
	}
	loadSpec(t, "limits.json", &spec)
	for _, c := range spec.Cases {
		_, err := NewMemory(WithClock(func() int64 { return 1_700_000_000_000 })).execute(c.Command, "key", c.Args)
		switch {
		case c.Error == nil && err != nil:
			t.Errorf("%s: %v", c.Name, err)
		case c.Error != nil && (err == nil || err.Error() != *c.Error):
			t.Errorf("%s: %v, not %q", c.Name, err, *c.Error)
		}
	}
}
