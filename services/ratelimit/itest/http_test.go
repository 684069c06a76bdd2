package itest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestTheJSONEndpointAnswersAsGRPCDoesAnd429OverTheLimit(t *testing.T) {
	s := startRLS(t, moduleEdition.url(t), map[string]string{"api.yaml": perHour}, nil)
	body := `{"domain":"api","descriptors":[{"entries":[{"key":"user","value":"j"}]}],"hitsAddend":10}`
	post := func() (int, string) {
		resp, err := http.Post("http://"+s.httpAddr+"/json", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	if code, out := post(); code != http.StatusOK || !strings.Contains(out, `"overallCode":"OK"`) {
		t.Fatalf("first: %d %s", code, out)
	}
	if code, out := post(); code != http.StatusTooManyRequests || !strings.Contains(out, `"overallCode":"OVER_LIMIT"`) {
		t.Fatalf("second: %d %s", code, out)
	}
}

func TestResponseHeadersCarryTheClosestLimitWhenEnabled(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perMinute}, env{"LIMIT_RESPONSE_HEADERS_ENABLED": "true", "LIMIT_REMAINING_HEADER": "X-Left"})
	inOneWindow(t, url, time.Minute, 2*time.Second, func() error {
		resp := s.ask(t, request("api", entries("user", "h"), entries("plan", "p")))
		got := map[string]string{}
		for _, h := range resp.GetResponseHeadersToAdd() {
			got[h.GetKey()] = h.GetValue()
		}
		if got["RateLimit-Limit"] != "3" || got["X-Left"] != "2" || got["RateLimit-Reset"] == "" {
			t.Fatalf("headers %v", got)
		}
		return nil
	})
}

func TestPrometheusHasUpstreamsNamesAndLabelsCurrentAtEveryScrape(t *testing.T) {
	url := moduleEdition.url(t)
	files := map[string]string{"api.yaml": perMinute, "example8.yaml": `domain: example8
descriptors:
  - key: key1
    detailed_metric: true
    rate_limit:
      unit: minute
      requests_per_unit: 10
  - key: key1
    value: value1
    rate_limit:
      unit: minute
      requests_per_unit: 20
`, "example10.yaml": `domain: example10
descriptors:
  - key: route
    value_to_metric: true
    descriptors:
      - key: http_method
        value_to_metric: true
        descriptors:
          - key: subject_id
            rate_limit:
              unit: minute
              requests_per_unit: 60
`}
	s := startRLS(t, url, files, env{"USE_PROMETHEUS": "true"})
	inOneWindow(t, url, time.Minute, 2*time.Second, func() error {
		for i := 0; i < 4; i++ {
			s.ask(t, request("api", entries("user", "p")))
		}
		s.ask(t, request("example8", entries("key1", "unspecified_value")))
		s.ask(t, request("example8", entries("key1", "value1")))
		s.ask(t, request("example10", entries("route", "api", "http_method", "GET", "subject_id", "123")))
		return nil
	})
	_, metrics := get(t, "http://"+s.promAddr+"/metrics")
	for _, line := range []string{
		`ratelimit_service_rate_limit_total_hits{domain="api",key1="user",key2=""} 4`,
		`ratelimit_service_rate_limit_within_limit{domain="api",key1="user",key2=""} 3`,
		`ratelimit_service_rate_limit_over_limit{domain="api",key1="user",key2=""} 1`,
		`ratelimit_service_rate_limit_near_limit{domain="api",key1="user",key2=""} 1`,
		`ratelimit_service_rate_limit_total_hits{domain="example8",key1="key1_unspecified_value",key2=""} 1`,
		`ratelimit_service_rate_limit_total_hits{domain="example8",key1="key1_value1",key2=""} 1`,
		`ratelimit_service_rate_limit_total_hits{domain="example10",key1="route_api",key2="http_method_GET"} 1`,
	} {
		if !strings.Contains(metrics, line) {
			t.Errorf("no %s in\n%s", line, grepLines(metrics, "ratelimit_service"))
		}
	}
}

func grepLines(text, word string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, word) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestTheGoClientsDecisionMetricsAreScrapedBesideUpstreams(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perMinute}, env{"USE_PROMETHEUS": "true"})
	inOneWindow(t, url, time.Minute, 2*time.Second, func() error {
		for i := 0; i < 4; i++ {
			s.ask(t, request("api", entries("user", "w")))
		}
		return nil
	})
	_, metrics := get(t, "http://"+s.promAddr+"/metrics")
	for _, line := range []string{
		`winlimit_decisions_total{outcome="allowed",policy="ratelimit"} 3`,
		`winlimit_decisions_total{outcome="rejected",policy="ratelimit"} 1`,
		`winlimit_call_seconds_count{backend="redis"} 4`,
		`ratelimit_service_rate_limit_total_hits{domain="api",key1="user",key2=""} 4`,
	} {
		if !strings.Contains(metrics, line) {
			t.Errorf("no %s in\n%s", line, grepLines(metrics, "limit"))
		}
	}
}

func TestEnvoysLimitOverrideIsCountedUnderTheDescriptorsKeysNeverItsValues(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"api.yaml": perHour}, env{"USE_PROMETHEUS": "true"})
	d := entries("user", "secret-user-id")
	d.Limit = &rlv3.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 2, Unit: 3} // 2 an hour
	expect(t, "the override", s.ask(t, request("api", d)), ok, want{code: ok, remaining: 1, perUnit: 2})
	_, metrics := get(t, "http://"+s.promAddr+"/metrics")
	if line := `ratelimit_service_rate_limit_total_hits{domain="api",key1="user",key2=""} 1`; !strings.Contains(metrics, line) {
		t.Errorf("no %s in\n%s", line, grepLines(metrics, "ratelimit_service"))
	}
	if strings.Contains(metrics, "secret-user-id") {
		t.Errorf("the request's value is in a label:\n%s", grepLines(metrics, "secret-user-id"))
	}
}
