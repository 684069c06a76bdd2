package itest

// Each example of upstream's README "Configuration" section, with its file as written there,
// asked the requests the example describes.

import (
	"testing"
	"time"
)

const example1 = `domain: mongo_cps
descriptors:
  - key: database
    value: users
    rate_limit:
      unit: second
      requests_per_unit: 500

  - key: database
    value: default
    rate_limit:
      unit: second
      requests_per_unit: 500
`

func TestExample1EachValueHasItsOwnLimitAndAnUnknownValueNone(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"example1.yaml": example1}, nil)
	users, def, other := request("mongo_cps", entries("database", "users")), request("mongo_cps", entries("database", "default")),
		request("mongo_cps", entries("database", "other"))
	inOneWindow(t, url, time.Second, 300*time.Millisecond, func() error {
		return s.sequence(t, []step{
			{users, ok, []want{{code: ok, remaining: 499, reset: 1, perUnit: 500}}},
			{users, ok, []want{{code: ok, remaining: 498, reset: 1}}},
			{def, ok, []want{{code: ok, remaining: 499, reset: 1}}},
			{other, ok, []want{{code: ok}}},
		})
	})
}

const example2 = `domain: messaging
descriptors:
  # Only allow 5 marketing messages a day
  - key: message_type
    value: marketing
    descriptors:
      - key: to_number
        rate_limit:
          unit: day
          requests_per_unit: 5

  # Only allow 100 messages a day to any unique phone number
  - key: to_number
    rate_limit:
      unit: day
      requests_per_unit: 100
`

func TestExample2TwoDescriptorsAreDecidedTogetherAndARejectionTakesNothing(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"example2.yaml": example2}, nil)
	both := request("messaging", entries("message_type", "marketing", "to_number", "2061111111"), entries("to_number", "2061111111"))
	inOneWindow(t, url, 24*time.Hour, 10*time.Second, func() error {
		steps := []step{}
		for i := uint32(1); i <= 5; i++ {
			steps = append(steps, step{both, ok, []want{{code: ok, remaining: 5 - i, perUnit: 5}, {code: ok, remaining: 100 - i, perUnit: 100}}})
		}
		// The sixth marketing message is refused: its to_number unit is given back.
		steps = append(steps, step{both, over, []want{{code: over, remaining: 0}, {code: ok, remaining: 95}}})
		steps = append(steps, step{request("messaging", entries("to_number", "2061111111")), ok, []want{{code: ok, remaining: 94}}})
		steps = append(steps, step{request("messaging", entries("message_type", "marketing", "to_number", "2062222222")), ok,
			[]want{{code: ok, remaining: 4}}})
		return s.sequence(t, steps)
	})
}

const example3 = `domain: edge_proxy_per_ip
descriptors:
  - key: remote_address
    rate_limit:
      unit: second
      requests_per_unit: 10

  # Black list IP
  - key: remote_address
    value: 50.0.0.5
    rate_limit:
      unit: second
      requests_per_unit: 0
`

func TestExample3TheMostSpecificMatchWinsAndALimitOfZeroRefusesAll(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"example3.yaml": example3}, nil)
	ip := request("edge_proxy_per_ip", entries("remote_address", "50.0.0.1"))
	blocked := request("edge_proxy_per_ip", entries("remote_address", "50.0.0.5"))
	inOneWindow(t, url, time.Second, 400*time.Millisecond, func() error {
		steps := []step{{blocked, over, []want{{code: over, remaining: 0, perUnit: 0}}}}
		for i := uint32(1); i <= 10; i++ {
			steps = append(steps, step{ip, ok, []want{{code: ok, remaining: 10 - i, perUnit: 10}}})
		}
		return s.sequence(t, append(steps, step{ip, over, []want{{code: over, remaining: 0, reset: 1}}}))
	})
}

const example4NoMatch = `domain: example4
descriptors:
  - key: key
    value: value
    rate_limit:
      requests_per_unit: 300
      unit: second
`

const example4Match = `domain: example4
descriptors:
  - key: key
    value: value
    descriptors:
      - key: subkey
        rate_limit:
          requests_per_unit: 300
          unit: second
`

func TestExample4ARuleMatchesOnlyAtTheDescriptorsOwnDepth(t *testing.T) {
	url := moduleEdition.url(t)
	req := request("example4", entries("key", "value", "subkey", "subvalue"))
	shallow := startRLS(t, url, map[string]string{"example4.yaml": example4NoMatch}, nil)
	expect(t, "one level", shallow.ask(t, req), ok, want{code: ok})
	deep := startRLS(t, url, map[string]string{"example4.yaml": example4Match}, nil)
	expect(t, "two levels", deep.ask(t, req), ok, want{code: ok, remaining: 299, perUnit: 300})
}

const example5 = `domain: internal
descriptors:
  - key: ldap
    rate_limit:
      unlimited: true

  - key: azure
    rate_limit:
      unit: minute
      requests_per_unit: 100
`

func TestExample5AnUnlimitedDescriptorAnswersMaxUint32(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"example5.yaml": example5}, nil)
	for i := 0; i < 3; i++ {
		expect(t, "ldap", s.ask(t, request("internal", entries("ldap", "x"))), ok, unlimitedStatus)
	}
	inOneWindow(t, url, time.Minute, 2*time.Second, func() error {
		return s.sequence(t, []step{{request("internal", entries("azure", "x")), ok, []want{{code: ok, remaining: 99, perUnit: 100}}}})
	})
}

const example6 = `domain: example6
descriptors:
  - key: service
    descriptors:
      - key: user
        value: user-a
        rate_limit:
          requests_per_unit: 10
          unit: second
        shadow_mode: true
      - key: user
        value: user-b
        rate_limit:
          requests_per_unit: 20
          unit: second
`

func TestExample6ShadowModeAnswersOKPastTheLimit(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"example6.yaml": example6}, nil)
	a := request("example6", entries("service", "auth-service", "user", "user-a"))
	b := request("example6", entries("service", "auth-service", "user", "user-b"))
	inOneWindow(t, url, time.Second, 500*time.Millisecond, func() error {
		steps := []step{}
		for i := uint32(1); i <= 10; i++ {
			steps = append(steps, step{a, ok, []want{{code: ok, remaining: 10 - i}}})
		}
		steps = append(steps, step{a, ok, []want{{code: ok, remaining: 0}}}, step{a, ok, []want{{code: ok, remaining: 0}}})
		for i := uint32(1); i <= 20; i++ {
			steps = append(steps, step{b, ok, []want{{code: ok, remaining: 20 - i}}})
		}
		return s.sequence(t, append(steps, step{b, over, []want{{code: over, remaining: 0}}}))
	})
}

const example7 = `domain: example7
descriptors:
  - key: key_1
    value: value_1
    descriptors:
      - key: user
        value: bkthomps
        rate_limit:
          name: specific_limit
          requests_per_unit: 5
          unit: second
  - key: key_2
    value: value_2
    descriptors:
      - key: user
        value: bkthomps
        rate_limit:
          replaces:
            - name: specific_limit
          requests_per_unit: 10
          unit: second
`

func TestExample7AReplacingRuleDropsTheReplacedOneAndLeavesItsCount(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"example7.yaml": example7}, nil)
	d1, d2 := entries("key_1", "value_1", "user", "bkthomps"), entries("key_2", "value_2", "user", "bkthomps")
	both := request("example7", d1, d2)
	inOneWindow(t, url, time.Second, 500*time.Millisecond, func() error {
		steps := []step{}
		for i := uint32(1); i <= 10; i++ {
			steps = append(steps, step{both, ok, []want{{code: ok}, {code: ok, remaining: 10 - i, perUnit: 10}}})
		}
		steps = append(steps, step{both, over, []want{{code: ok}, {code: over}}})
		return s.sequence(t, append(steps, step{request("example7", d1), ok, []want{{code: ok, remaining: 4, perUnit: 5}}}))
	})
	if name := s.ask(t, request("example7", d1)).GetStatuses()[0].GetCurrentLimit().GetName(); name != "specific_limit" {
		t.Fatalf("current_limit.name %q", name)
	}
}

const example9 = `domain: example9
descriptors:
  - key: key1
    value: value*
    rate_limit:
      unit: minute
      requests_per_unit: 20
  - key: path
    value: /api/*/action
    rate_limit:
      unit: minute
      requests_per_unit: 20
  - key: route
    value: /api/*/resource/*/action
    rate_limit:
      unit: minute
      requests_per_unit: 20
`

func TestExample9WildcardsMatchTrailingMiddleAndSeveral(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"example9.yaml": example9}, nil)
	limited := want{code: ok, remaining: 19, perUnit: 20}
	cases := []struct {
		kv   []string
		want want
	}{
		{[]string{"key1", "value1"}, limited}, {[]string{"key1", "valueXYZ"}, limited}, {[]string{"key1", "other"}, want{code: ok}},
		{[]string{"path", "/api/123/action"}, limited}, {[]string{"path", "/api/user-id/action"}, limited},
		{[]string{"path", "/api/123/other"}, want{code: ok}},
		{[]string{"route", "/api/v1/resource/123/action"}, limited}, {[]string{"route", "/api/v2/resource/456/action"}, limited},
		{[]string{"route", "/api/v1/resource/123/other"}, want{code: ok}},
	}
	inOneWindow(t, url, time.Minute, 2*time.Second, func() error {
		steps := []step{}
		for _, c := range cases {
			steps = append(steps, step{request("example9", entries(c.kv...)), ok, []want{c.want}})
		}
		return s.sequence(t, steps)
	})
}

const example11 = `domain: example11
descriptors:
  # With share_threshold: true, all files/* matches share the same threshold
  - key: files
    value: files/*
    share_threshold: true
    rate_limit:
      unit: hour
      requests_per_unit: 10

  # Without share_threshold, each files_no_share/* match has its own isolated threshold
  - key: files_no_share
    value: files_no_share/*
    share_threshold: false
    rate_limit:
      unit: hour
      requests_per_unit: 10
`

func TestExample11ShareThresholdMakesWildcardMatchesShareOneCounter(t *testing.T) {
	url := moduleEdition.url(t)
	s := startRLS(t, url, map[string]string{"example11.yaml": example11}, nil)
	file := func(key, name string) *step {
		return &step{req: request("example11", entries(key, name)), overall: ok}
	}
	inOneWindow(t, url, time.Hour, 5*time.Second, func() error {
		steps := []step{}
		for i := uint32(1); i <= 10; i++ {
			name := map[bool]string{true: "files/a.pdf", false: "files/b.csv"}[i <= 5]
			st := file("files", name)
			st.statuses = []want{{code: ok, remaining: 10 - i}}
			steps = append(steps, *st)
			st = file("files_no_share", "files_no_share/a.pdf")
			st.statuses = []want{{code: ok, remaining: 10 - i}}
			steps = append(steps, *st)
		}
		steps = append(steps, step{request("example11", entries("files", "files/c.txt")), over, []want{{code: over}}},
			step{request("example11", entries("files_no_share", "files_no_share/b.csv")), ok, []want{{code: ok, remaining: 9}}})
		return s.sequence(t, steps)
	})
}
