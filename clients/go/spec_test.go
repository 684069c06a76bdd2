package winlimit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/winlimit/winlimit/clients/go/internal/fields"
)

// The shared cases (clients/spec/*.json), read at test time: the same files every client's
// tests read. A case this client cannot pass fails; none is skipped.

func loadSpec(t testing.TB, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "spec", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// specCall is a limiter call as the spec writes it: a method, its positional arguments
// (the key first) and its options.
type specCall struct {
	Method  string         `json:"method"`
	Args    []any          `json:"args"`
	Options map[string]any `json:"options"`
}

// specMethod is the Limiter's method for the spec's name of it ("" for none): the registry's.
func specMethod(name string) string {
	for _, spec := range commandSpecs {
		if strings.EqualFold(spec.method, name) {
			return spec.method
		}
	}
	return ""
}

func msArg(v any) time.Duration { return time.Duration(v.(float64)) * time.Millisecond }

// callOptionsOf turns the spec's options into CallOptions; an option it does not know fails.
func callOptionsOf(t testing.TB, options map[string]any) []CallOption {
	t.Helper()
	names := make([]string, 0, len(options))
	for name := range options {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []CallOption
	for _, name := range names {
		v := options[name]
		switch name {
		case "cost":
			out = append(out, Cost(int64(v.(float64))))
		case "refund":
			out = append(out, Refund(int64(v.(float64))))
		case "burst":
			out = append(out, Burst(int64(v.(float64))))
		case "block_ms":
			out = append(out, Block(msArg(v)))
		case "bucket":
			out = append(out, Bucket(msArg(v)))
		case "align":
			if v.(bool) {
				out = append(out, Align())
			}
		case "peek":
			if v.(bool) {
				out = append(out, Peek())
			}
		case "name":
			out = append(out, Name(v.(string)))
		default:
			t.Fatalf("the spec's option %q has no CallOption", name)
		}
	}
	return out
}

// buildSpec is the one builder from a spec call to the call a Limiter sends; a method the
// spec does not list fails, with no default.
func buildSpec(t testing.TB, l *Limiter, sc specCall) (call, error) {
	t.Helper()
	opts := callOptionsOf(t, sc.Options)
	key := sc.Args[0].(string)
	switch sc.Method {
	case "slide":
		o, err := l.collect(slideCommand.method, opts, slideCommand.options()...)
		if err != nil {
			return call{}, err
		}
		var windows []Window
		if pairs, ok := sc.Args[1].([]any); ok {
			for _, p := range pairs {
				pair := p.([]any)
				windows = append(windows, Window{msArg(pair[0]), int64(pair[1].(float64))})
			}
		} else {
			windows = []Window{{msArg(sc.Args[1]), int64(sc.Args[2].(float64))}}
		}
		return buildSlide(key, windows, o)
	case "fixed":
		o, err := l.collect(fixedCommand.method, opts, fixedCommand.options()...)
		if err != nil {
			return call{}, err
		}
		return buildFixed(key, msArg(sc.Args[1]), int64(sc.Args[2].(float64)), o)
	case "gcra":
		o, err := l.collect(gcraCommand.method, opts, gcraCommand.options()...)
		if err != nil {
			return call{}, err
		}
		return buildGCRA(key, msArg(sc.Args[1]), int64(sc.Args[2].(float64)), o)
	}
	return call{}, fmt.Errorf("commands.json lists no method %q", sc.Method)
}

func argStrings(args []any) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fmt.Sprint(a)
	}
	return out
}

type specPolicy struct {
	Name     string `json:"name"`
	Quota    int64  `json:"quota"`
	WindowMs int64  `json:"window_ms"`
}

func (p specPolicy) policy() Policy {
	return Policy{Name: p.Name, Quota: p.Quota, Window: time.Duration(p.WindowMs) * time.Millisecond}
}

func TestSpecCommands(t *testing.T) {
	var spec struct {
		Methods map[string]struct {
			Command string   `json:"command"`
			Options []string `json:"options"`
		} `json:"methods"`
		Helpers map[string]string `json:"helpers"`
		Cases   []struct {
			Name     string       `json:"name"`
			Call     specCall     `json:"call"`
			Args     []string     `json:"args"`
			Policies []specPolicy `json:"policies"`
		} `json:"cases"`
		UnknownMethods []string `json:"unknown_methods"`
	}
	loadSpec(t, "commands.json", &spec)
	l := newLimiter(t, nil)
	for _, c := range spec.Cases {
		t.Run(c.Name, func(t *testing.T) {
			built, err := buildSpec(t, l, c.Call)
			if err != nil {
				t.Fatal(err)
			}
			if got := argStrings(built.args); !reflect.DeepEqual(got, c.Args) {
				t.Fatalf("sends %q, not %q", got, c.Args)
			}
			want := make([]Policy, len(c.Policies))
			for i, p := range c.Policies {
				want[i] = p.policy()
			}
			if !reflect.DeepEqual(built.policies, want) {
				t.Fatalf("policies %+v, not %+v", built.policies, want)
			}
		})
	}
	for _, m := range spec.UnknownMethods {
		if _, err := buildSpec(t, l, specCall{Method: m, Args: []any{"k", 60000.0, 10.0}}); err == nil || !strings.Contains(err.Error(), "lists no method") {
			t.Errorf("method %q: %v", m, err)
		}
	}
	// The Limiter has exactly the spec's methods and helpers, and every option is a CallOption.
	want := map[string]bool{}
	for m, described := range spec.Methods {
		want[specMethod(m)] = true
		for _, option := range described.Options {
			callOptionsOf(t, map[string]any{option: map[string]any{"cost": 1.0, "refund": 1.0, "burst": 1.0, "block_ms": 1.0, "bucket": 1.0, "align": true, "peek": true, "name": "n"}[option]})
		}
	}
	for h := range spec.Helpers {
		want[strings.ToUpper(h[:1])+h[1:]] = true
	}
	typ := reflect.TypeOf(l)
	for i := 0; i < typ.NumMethod(); i++ {
		if !want[typ.Method(i).Name] {
			t.Errorf("Limiter.%s is not in commands.json", typ.Method(i).Name)
		}
		delete(want, typ.Method(i).Name)
	}
	if len(want) > 0 {
		t.Errorf("Limiter lacks %v", want)
	}
}

func TestSpecConstants(t *testing.T) {
	var spec struct {
		Defaults        map[string]any `json:"defaults"`
		ModuleNotLoaded struct {
			Separator   string   `json:"separator"`
			Fix         string   `json:"fix"`
			ServerTexts []string `json:"server_texts"`
		} `json:"module_not_loaded"`
		WindowLabels [][]any `json:"window_labels"`
	}
	loadSpec(t, "constants.json", &spec)
	own := map[string]any{
		"name": DefaultName, "cache_size": float64(DefaultCacheSize), "prefix": DefaultPrefix,
		"fail_open": false, "shadow": false, "timeout_ms": float64(DefaultTimeout.Milliseconds()),
		"shadow_log_keys": float64(DefaultShadowLogKeys),
	}
	if !reflect.DeepEqual(spec.Defaults, own) {
		t.Errorf("defaults %v, not %v", own, spec.Defaults)
	}
	if moduleNotLoadedFix != spec.ModuleNotLoaded.Fix {
		t.Errorf("the fix differs: %q", moduleNotLoadedFix)
	}
	for _, text := range spec.ModuleNotLoaded.ServerTexts {
		err := translate(serverError(text))
		if !strings.HasSuffix(err.Error(), text+spec.ModuleNotLoaded.Separator+spec.ModuleNotLoaded.Fix) {
			t.Errorf("%q became %q", text, err)
		}
	}
	for _, pair := range spec.WindowLabels {
		if got := windowLabel(msArg(pair[0])); got != pair[1] {
			t.Errorf("window %v labelled %q, not %q", pair[0], got, pair[1])
		}
	}
}

// serverError is an error reply as go-redis reads it.
type serverError string

func (e serverError) Error() string { return string(e) }
func (serverError) RedisError()     {}

type specReply [5]int64

func headerMap(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[http.CanonicalHeaderKey(k)] = strings.Join(v, ", ")
	}
	return out
}

func canonical(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[http.CanonicalHeaderKey(k)] = v
	}
	return out
}

func decisionOf(t testing.TB, sc specCall, reply specReply) Decision {
	t.Helper()
	built, err := buildSpec(t, newLimiter(t, nil), sc)
	if err != nil {
		t.Fatal(err)
	}
	return fromFive(reply, built.policies, "module")
}

func TestSpecHeaders(t *testing.T) {
	var spec struct {
		Cases []struct {
			Name    string            `json:"name"`
			Call    specCall          `json:"call"`
			Args    []string          `json:"args"`
			Reply   specReply         `json:"reply"`
			Headers map[string]string `json:"headers"`
		} `json:"cases"`
		Errors []struct {
			Name  string    `json:"name"`
			Call  specCall  `json:"call"`
			Reply specReply `json:"reply"`
			Error string    `json:"error"`
		} `json:"errors"`
		BadNames []string `json:"bad_names"`
	}
	loadSpec(t, "headers.json", &spec)
	for _, c := range spec.Cases {
		t.Run(c.Name, func(t *testing.T) {
			built, err := buildSpec(t, newLimiter(t, nil), c.Call)
			if err != nil {
				t.Fatal(err)
			}
			if got := argStrings(built.args); !reflect.DeepEqual(got, c.Args) {
				t.Fatalf("sends %q, not %q", got, c.Args)
			}
			d := decisionOf(t, c.Call, c.Reply)
			h, err := d.Headers()
			if err != nil {
				t.Fatal(err)
			}
			if got := headerMap(h); !reflect.DeepEqual(got, canonical(c.Headers)) {
				t.Fatalf("%v, not %v", got, c.Headers)
			}
		})
	}
	for _, c := range spec.Errors {
		d := decisionOf(t, c.Call, c.Reply)
		if _, err := d.Headers(); err == nil || !strings.Contains(err.Error(), c.Error) {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	for _, name := range spec.BadNames {
		var ae *ArgumentError
		if _, err := newLimiter(t, nil).Fixed(ctx, "k", time.Second, 1, Name(name)); !asArgumentError(err, &ae) {
			t.Errorf("name %q: %v", name, err)
		}
		if _, err := New(nil, WithName(name)); !asArgumentError(err, &ae) {
			t.Errorf("WithName %q: %v", name, err)
		}
	}
}

func asArgumentError(err error, ae **ArgumentError) bool {
	e, ok := err.(*ArgumentError)
	*ae = e
	return ok
}

// specStyles maps the spec's style names to HeaderStyles ("null": none).
var specStyles = map[string]HeaderStyle{"draft-11": Draft11, "draft-7": Draft7, "legacy": Legacy, "null": NoHeaders}

type specDecided struct {
	Call  specCall  `json:"call"`
	Reply specReply `json:"reply"`
}

func TestSpecHeaderStyles(t *testing.T) {
	var spec struct {
		Cases []struct {
			Name   string                       `json:"name"`
			Call   specCall                     `json:"call"`
			Reply  specReply                    `json:"reply"`
			NowMs  int64                        `json:"now_ms"`
			Fields map[string]map[string]string `json:"fields"`
		} `json:"cases"`
		Stacked []struct {
			Name   string                       `json:"name"`
			NowMs  int64                        `json:"now_ms"`
			On     specDecided                  `json:"on"`
			Added  specDecided                  `json:"added"`
			Fields map[string]map[string]string `json:"fields"`
		} `json:"stacked"`
		BadStyles []any `json:"bad_styles"`
	}
	loadSpec(t, "header_styles.json", &spec)
	for _, c := range spec.Cases {
		for name, want := range c.Fields {
			t.Run(c.Name+"/"+name, func(t *testing.T) {
				d := decisionOf(t, c.Call, c.Reply)
				h, err := d.StyleHeaders(specStyles[name], time.UnixMilli(c.NowMs))
				if err != nil {
					t.Fatal(err)
				}
				if got := headerMap(h); !reflect.DeepEqual(got, canonical(want)) {
					t.Fatalf("%v, not %v", got, want)
				}
			})
		}
	}
	for _, c := range spec.Stacked {
		for name, want := range c.Fields {
			t.Run(c.Name+"/"+name, func(t *testing.T) {
				style, now := specStyles[name], time.UnixMilli(c.NowMs)
				on := decisionOf(t, c.On.Call, c.On.Reply)
				added := decisionOf(t, c.Added.Call, c.Added.Reply)
				response, _ := on.StyleHeaders(style, now)
				response.Set("Content-Type", "text/plain")
				addedFields, _ := added.StyleHeaders(style, now)
				fields.Merge(response, addedFields, string(style))
				response.Del("Content-Type")
				if got := headerMap(response); !reflect.DeepEqual(got, canonical(want)) {
					t.Fatalf("%v, not %v", got, want)
				}
			})
		}
	}
	for _, bad := range spec.BadStyles {
		name, isString := bad.(string)
		if _, err := ParseHeaderStyle(name); isString && err == nil {
			t.Errorf("style %q accepted", name)
		}
		// A style that is not a string cannot be given: the type is HeaderStyle.
	}
}

func TestSpecCache(t *testing.T) {
	var spec struct {
		Call  specCall `json:"call"`
		Cases []struct {
			Name  string `json:"name"`
			Size  int    `json:"size"`
			Steps []struct {
				AtMs   float64    `json:"at_ms"`
				Key    string     `json:"key"`
				Peek   bool       `json:"peek"`
				Reply  *specReply `json:"reply"`
				Answer *specReply `json:"answer"`
			} `json:"steps"`
			Held int `json:"held"`
		} `json:"cases"`
		BadSizes []json.RawMessage `json:"bad_sizes"`
	}
	loadSpec(t, "cache.json", &spec)
	for _, c := range spec.Cases {
		t.Run(c.Name, func(t *testing.T) {
			now := 0.0
			cache := newRejectionCache(c.Size, func() float64 { return now })
			for i, step := range c.Steps {
				now = step.AtMs
				sc := spec.Call
				sc.Args = append([]any{step.Key}, sc.Args[1:]...)
				sc.Options = map[string]any{"peek": step.Peek}
				built, err := buildSpec(t, newLimiter(t, nil), sc)
				if err != nil {
					t.Fatal(err)
				}
				if step.Reply != nil {
					cache.remember(&built, *step.Reply, "module")
					continue
				}
				got, ok := cache.lookup(&built)
				if step.Answer == nil && ok || step.Answer != nil && (!ok || got != *step.Answer) {
					t.Fatalf("step %d: %v %v, not %v", i, got, ok, step.Answer)
				}
			}
			if cache.held() != c.Held {
				t.Fatalf("holds %d, not %d", cache.held(), c.Held)
			}
		})
	}
	for _, raw := range spec.BadSizes {
		var n int
		if err := json.Unmarshal(raw, &n); err != nil {
			continue // not an int: the parameter's type refuses it
		}
		if _, err := New(nil, WithRejectionCache(n)); err == nil {
			t.Errorf("size %d accepted", n)
		}
	}
}
