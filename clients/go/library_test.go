package winlimit

import (
	"os"
	"regexp"
	"testing"
)

func replaceVersion(text, version string) string {
	return regexp.MustCompile(`(?m)^local VERSION = '[^']+'$`).ReplaceAllString(text, "local VERSION = '"+version+"'")
}

func TestTheEmbeddedLibraryIsLuaWinlimitLua(t *testing.T) {
	source, err := os.ReadFile("../../lua/winlimit.lua")
	if err != nil {
		t.Fatal(err)
	}
	if string(source) != libraryText {
		t.Fatal("clients/go/winlimit.lua differs from lua/winlimit.lua: run `make lua-clients`")
	}
	if ownLibrary.version == "" {
		t.Fatal("the library has no VERSION line")
	}
}

func TestVersionsCompareAsNumbers(t *testing.T) {
	for _, c := range []struct {
		a, b    string
		atLeast bool
	}{{"0.10.0", "0.4.0", true}, {"0.4.0", "0.4.0", true}, {"0.3.9", "0.4.0", false}, {"x", "0.4.0", false}} {
		if versionAtLeast(c.a, c.b) != c.atLeast {
			t.Errorf("%s >= %s should be %v", c.a, c.b, c.atLeast)
		}
	}
}
