package winlimit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestAConsumerModuleBuildsAgainstThePackageThroughReplace(t *testing.T) {
	gobin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go"
	}
	cmd := exec.Command(gobin, "build", "-o", os.DevNull, ".")
	cmd.Dir = filepath.Join("testdata", "consumer")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in testdata/consumer: %v\n%s", err, out)
	}
}
