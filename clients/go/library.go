package winlimit

import (
	"crypto/sha1"
	_ "embed" // the library, built in
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
)

// libraryText is lua/winlimit.lua, copied here by `make lua-clients` (scripts/embed-lua.py);
// a test checks the two are equal.
//
//go:embed winlimit.lua
var libraryText string

type library struct {
	text    string // for FUNCTION LOAD
	script  string // for EVALSHA (Redis 6.x)
	sha     string
	version string
}

var ownLibrary = newLibrary(libraryText)

// scriptFrom is scripts/build-lua.py's script_from: the #!lua line replaced by a comment
// (keeping line numbers), so the SHA is the one every client loads.
func scriptFrom(text string) string {
	_, rest, _ := strings.Cut(text, "\n")
	return "-- winlimit script for EVALSHA, built from lua/winlimit.lua by scripts/build-lua.py\n" + rest
}

func newLibrary(text string) library {
	script := scriptFrom(text)
	sum := sha1.Sum([]byte(script))
	found := regexp.MustCompile(`(?m)^local VERSION = '([^']+)'$`).FindStringSubmatch(text)
	version := ""
	if found != nil {
		version = found[1]
	}
	return library{text: text, script: script, sha: hex.EncodeToString(sum[:]), version: version}
}

// versionParts reads "0.4.0" as [0 4 0]; anything unreadable is older than every version.
func versionParts(v string) []int {
	var out []int
	for _, part := range strings.Split(v, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// versionAtLeast reports a >= b, compared part by part as Python compares tuples.
func versionAtLeast(a, b string) bool {
	pa, pb := versionParts(a), versionParts(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] > pb[i]
		}
	}
	return len(pa) >= len(pb)
}
