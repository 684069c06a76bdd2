package itest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// perMinuteTwoLevels is a rule two keys deep, so its stat has a second level (key2).
const perMinuteTwoLevels = `domain: nested
descriptors:
  - key: route
    value_to_metric: true
    descriptors:
      - key: method
        rate_limit:
          unit: minute
          requests_per_unit: 1
`

// scrapeAfterCalls starts the service with the mapper file, makes 4 calls on api's user
// rule (limit 3) and 2 on nested's, and returns the /metrics page's ratelimit series (the
// Go client's winlimit_ series beside them are not the mapper's).
func scrapeAfterCalls(t *testing.T, mapperFile string) []string {
	t.Helper()
	url := moduleEdition.url(t)
	files := map[string]string{"api.yaml": perMinute, "nested.yaml": perMinuteTwoLevels}
	s := startRLS(t, url, files, env{"USE_PROMETHEUS": "true", "PROMETHEUS_MAPPER_YAML": mapperFile})
	inOneWindow(t, url, time.Minute, 2*time.Second, func() error {
		for i := 0; i < 4; i++ {
			s.ask(t, request("api", entries("user", "p")))
		}
		for i := 0; i < 2; i++ {
			s.ask(t, request("nested", entries("route", "api", "method", "GET")))
		}
		return nil
	})
	_, metrics := get(t, "http://"+s.promAddr+"/metrics")
	var series []string
	for _, l := range strings.Split(metrics, "\n") {
		if strings.HasPrefix(l, "ratelimit") {
			series = append(series, l)
		}
	}
	return series
}

func writeMapper(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mapper.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func assertSeries(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("series:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestEnvoyGatewaysMapperGivesItsSeriesAndDropsTheRest(t *testing.T) {
	mapper, err := filepath.Abs("testdata/envoy-gateway-statsd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	assertSeries(t, scrapeAfterCalls(t, mapper), []string{
		`ratelimit_service_rate_limit_near_limit{domain="api",key1="user"} 1`,
		`ratelimit_service_rate_limit_near_limit{domain="nested",key1="route_api",key2="method"} 1`,
		`ratelimit_service_rate_limit_over_limit{domain="api",key1="user"} 1`,
		`ratelimit_service_rate_limit_over_limit{domain="nested",key1="route_api",key2="method"} 1`,
		`ratelimit_service_rate_limit_shadow_mode{domain="nested",key1="route_api",key2="method"} 0`,
		`ratelimit_service_rate_limit_total_hits{domain="api",key1="user"} 4`,
		`ratelimit_service_rate_limit_total_hits{domain="nested",key1="route_api",key2="method"} 2`,
		`ratelimit_service_rate_limit_within_limit{domain="api",key1="user"} 3`,
		`ratelimit_service_rate_limit_within_limit{domain="nested",key1="route_api",key2="method"} 1`,
	})
}

func TestACustomMapperRenamesWhatItMatchesAndEscapesTheRest(t *testing.T) {
	mapper := writeMapper(t, `mappings:
  - match: "ratelimit.service.rate_limit.*.*.over_limit"
    name: "ratelimit_rejected_total"
    labels: {tenant: "$1", rule: "$2"}
  - match: "ratelimit.service.rate_limit.nested.*.*.*"
    action: drop
    name: dropped
`)
	assertSeries(t, scrapeAfterCalls(t, mapper), []string{
		`ratelimit_rejected_total{rule="user",tenant="api"} 1`,
		`ratelimit_service_rate_limit_api_user_near_limit 1`,
		`ratelimit_service_rate_limit_api_user_shadow_mode 0`,
		`ratelimit_service_rate_limit_api_user_total_hits 4`,
		`ratelimit_service_rate_limit_api_user_within_limit 3`,
	})
}

func TestAMapperFileThatDoesNotParseStopsTheStartNamingTheFile(t *testing.T) {
	mapper := writeMapper(t, "mappings:\n  - match: [\n")
	startFails(t, map[string]string{"api.yaml": perMinute}, env{"USE_PROMETHEUS": "true", "PROMETHEUS_MAPPER_YAML": mapper},
		"PROMETHEUS_MAPPER_YAML "+mapper)
}
