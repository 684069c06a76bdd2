package redistest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// This package is clients/go/internal/redistest, copied: Go's internal rule keeps a package
// under clients/go/internal from this module, and exporting it from clients/go would make
// test scaffolding part of the client's public API. The copy is generated, never edited:
//
//go:generate sh -c "cp ../../../../clients/go/internal/redistest/*.go ."

// origin is the package this one copies.
const origin = "../../../../clients/go/internal/redistest"

func TestThisPackageIsAnExactCopyOfTheGoClients(t *testing.T) {
	want := goFiles(t, origin)
	got := goFiles(t, ".")
	for name, content := range want {
		if !bytes.Equal(got[name], content) {
			t.Errorf("%s differs from %s/%s: run go generate in %s", name, origin, name, "services/ratelimit/internal/redistest")
		}
		delete(got, name)
	}
	for name := range got {
		t.Errorf("%s is not in %s: the copy has only the origin's files", name, origin)
	}
}

// goFiles are a folder's Go files but its tests, by name.
func goFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}
