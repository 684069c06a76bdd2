package itest

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestARequestForADomainNoFileDefinesIsOKWithNoLimit(t *testing.T) {
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perMinute}, nil)
	expect(t, "unknown domain", s.ask(t, request("nobody", entries("user", "u"))), ok, want{code: ok})
}

func TestAChangedFileIsReloadedWhileTheServiceRuns(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perMinute}, nil)
	user := request("api", entries("user", "u"))
	expect(t, "before", s.ask(t, user), ok, want{code: ok, remaining: 2, perUnit: 3})
	s.write(t, "api.yaml", strings.Replace(perMinute, "requests_per_unit: 3", "requests_per_unit: 7", 1))
	s.waitLog(t, "Successfully loaded new configuration")
	if got := s.ask(t, user).GetStatuses()[0].GetCurrentLimit().GetRequestsPerUnit(); got != 7 {
		t.Fatalf("after the reload the limit is %d", got)
	}
}

// configMapVersion writes a Kubernetes ConfigMap volume's next version as the kubelet does:
// the files in a new dot folder, a new ..data symlink to it renamed over the old one, and
// each file a symlink through ..data.
func configMapVersion(t *testing.T, dir, version, name, content string) {
	t.Helper()
	versionDir := filepath.Join(dir, "..v"+version)
	if err := os.Mkdir(versionDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(versionDir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..v"+version, filepath.Join(dir, "..data_tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..data", name), filepath.Join(dir, name)); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
}

func TestAConfigMapsSymlinkSwapIsReloadedWithDotFilesIgnored(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, nil, env{"RUNTIME_IGNOREDOTFILES": "true"}) // as Envoy Gateway sets it
	configMapVersion(t, s.configDir, "1", "api.yaml", perMinute)
	s.waitLog(t, "Successfully loaded new configuration")
	user := request("api", entries("user", "k"))
	expect(t, "version 1", s.ask(t, user), ok, want{code: ok, remaining: 2, perUnit: 3})
	configMapVersion(t, s.configDir, "2", "api.yaml", strings.Replace(perMinute, "requests_per_unit: 3", "requests_per_unit: 7", 1))
	deadline := time.Now().Add(readyWithin)
	for s.ask(t, user).GetStatuses()[0].GetCurrentLimit().GetRequestsPerUnit() != 7 {
		if time.Now().After(deadline) {
			t.Fatalf("version 2 not in force within %v:\n%s", readyWithin, s.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestABrokenFileKeepsTheLastGoodConfigurationAndLogsWhy(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perMinute}, nil)
	s.write(t, "api.yaml", perMinute+"    colour: red\n")
	s.waitLog(t, "config.api.yaml: config error, unknown key 'colour'")
	resp := s.ask(t, request("api", entries("user", "u")))
	expect(t, "after the broken file", resp, ok, want{code: ok, remaining: 2, perUnit: 3})
}

// startFails runs the service with files and settings and wants it to exit, saying why.
func startFails(t *testing.T, files map[string]string, settings env, why string) {
	t.Helper()
	s, err := launch(t, moduleEdition.url(t), files, settings)
	if err == nil {
		t.Fatalf("the service started:\n%s", s.log.String())
	}
	select {
	case <-s.exited:
		if ee, isExit := s.exitErr.(*exec.ExitError); !isExit || ee.ExitCode() == 0 {
			t.Fatalf("exit: %v", s.exitErr)
		}
	case <-time.After(readyWithin):
		t.Fatal("the service did not exit")
	}
	if !strings.Contains(s.log.String(), why) {
		t.Fatalf("the log does not say %q:\n%s", why, s.log.String())
	}
}

func TestAnUnknownKeyAtStartStopsTheServiceWithUpstreamsMessage(t *testing.T) {
	startFails(t, map[string]string{"api.yaml": perMinute + "    colour: red\n"}, nil, "config.api.yaml: config error, unknown key 'colour'")
}

func TestQuotaModeInAFileIsRefusedByName(t *testing.T) {
	file := strings.Replace(perMinute, "  - key: plan\n", "  - key: plan\n    quota_mode: true\n", 1)
	startFails(t, map[string]string{"api.yaml": file}, nil, "quota_mode is not supported")
}

func TestQuotaModeWrittenFalseAsksForNothingAndLoads(t *testing.T) {
	file := strings.Replace(perMinute, "  - key: plan\n", "  - key: plan\n    quota_mode: false\n", 1)
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": file}, nil)
	expect(t, "a limit as usual", s.ask(t, request("api", entries("plan", "q"))), ok, want{code: ok, remaining: 99, perUnit: 100})
}

func TestAnUnsupportedSettingIsRefusedByName(t *testing.T) {
	for name, value := range map[string]string{"BACKEND_TYPE": "memcache", "REDIS_PERSECOND": "true", "QUOTA_MODE": "true",
		"RESPONSE_DYNAMIC_METADATA": "true", "CONFIG_TYPE": "REST"} {
		t.Run(name, func(t *testing.T) {
			startFails(t, map[string]string{"api.yaml": perMinute}, env{name: value}, name)
		})
	}
}

func TestStatsdLeftAtUpstreamsDefaultGetsOneWarningAndTheServiceStarts(t *testing.T) {
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perMinute}, env{"USE_STATSD": "true"})
	if n := strings.Count(s.log.String(), "statsd is not supported"); n != 1 {
		t.Fatalf("%d statsd warnings:\n%s", n, s.log.String())
	}
}

func TestUpstreamsTuningSettingsStartTheServiceWithAWarningEach(t *testing.T) {
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perMinute},
		env{"REDIS_PIPELINE_WINDOW": "150us", "REDIS_PIPELINE_LIMIT": "8", "EXPIRATION_JITTER_MAX_SECONDS": "300"})
	for _, name := range []string{"REDIS_PIPELINE_WINDOW", "REDIS_PIPELINE_LIMIT", "EXPIRATION_JITTER_MAX_SECONDS"} {
		if n := strings.Count(s.log.String(), name+" has no effect"); n != 1 {
			t.Errorf("%d warnings for %s:\n%s", n, name, s.log.String())
		}
	}
	expect(t, "started", s.ask(t, request("api", entries("user", "t"))), ok, want{code: ok, remaining: 2})
}

func TestDisableStatsTurnsOffStatsdsWarningAndPrometheusAsUpstream(t *testing.T) {
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perMinute},
		env{"USE_STATSD": "true", "USE_PROMETHEUS": "true", "DISABLE_STATS": "true"})
	s.waitLog(t, "listening")
	if strings.Contains(s.log.String(), "statsd is not supported") {
		t.Fatalf("a statsd warning with DISABLE_STATS:\n%s", s.log.String())
	}
	if resp, err := http.Get("http://" + s.promAddr + "/metrics"); err == nil {
		resp.Body.Close()
		t.Fatalf("Prometheus answered %d with DISABLE_STATS", resp.StatusCode)
	}
}

func TestDomainsInSeveralFilesAreRefusedUnlessMerged(t *testing.T) {
	other := "domain: api\ndescriptors:\n  - key: team\n    rate_limit:\n      unit: hour\n      requests_per_unit: 9\n"
	files := map[string]string{"api.yaml": perMinute, "team.yaml": other}
	startFails(t, files, nil, "duplicate domain 'api' in config file")
	s := startRLS(t, moduleEdition.url(t), files, env{"MERGE_DOMAIN_CONFIG": "true"})
	expect(t, "merged", s.ask(t, request("api", entries("team", "t"))), ok, want{code: ok, remaining: 8, perUnit: 9})
}
