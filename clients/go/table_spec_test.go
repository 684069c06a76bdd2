package winlimit

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The client's commands are the module's command table (clients/spec/command_table.json,
// generated from src/redis/commands.rs): the registry each command file declares (its
// method, state kind and options), and what is derived from it (the methods a middleware's
// Recorder records, the options a refund repeats, the memory limiter's dispatch). Each test
// fails naming the row a list misses, as the Python and Node clients' spec-table tests do.
type tableRow struct {
	Name    string  `json:"name"`
	State   string  `json:"state"`
	Records bool    `json:"records"`
	Partner *string `json:"partner"`
	Method  *string `json:"method"`
	Options []struct {
		Client string `json:"client"`
	} `json:"options"`
}

func commandTable(t *testing.T) []tableRow {
	var spec struct {
		Commands []tableRow `json:"commands"`
	}
	loadSpec(t, "command_table.json", &spec)
	var rows []tableRow
	for _, row := range spec.Commands {
		if row.Method != nil { // the module's own (CL.THROTTLE) have no client method
			rows = append(rows, row)
		}
	}
	return rows
}

// writer is the row's recording command: itself, or the reader's partner.
func (row tableRow) writer() string {
	if row.Records || row.Partner == nil {
		return row.Name
	}
	return *row.Partner
}

func (row tableRow) optionNames() []string {
	var names []string
	for _, o := range row.Options {
		names = append(names, o.Client)
	}
	slices.Sort(names)
	return names
}

// specOptionNames are the table's names of the options spec's writer (or reader) takes.
func specOptionNames(spec *commandSpec, records bool) []string {
	names := []string{"cost"}
	if records {
		names = append(names, "refund", "block_ms") // the table's name for Block
	}
	for _, kind := range spec.shape {
		names = append(names, optionNames[kind])
	}
	slices.Sort(names)
	return names
}

// goMethod is a table method's Go name: Slide, Fixed, GCRA.
func goMethod(method string) string {
	if method == "gcra" {
		return "GCRA"
	}
	return strings.ToUpper(method[:1]) + method[1:]
}

func TestSpecTableTheRegistryDeclaresEveryCommand(t *testing.T) {
	for _, row := range commandTable(t) {
		spec, ok := commandSpecs[row.writer()]
		if !ok {
			t.Errorf("the registry has no %s (%s)", row.writer(), row.Name)
			continue
		}
		if spec.method != goMethod(*row.Method) {
			t.Errorf("%s: the registry's method is %s, the table's %s", row.Name, spec.method, goMethod(*row.Method))
		}
		if string(spec.state) != row.State {
			t.Errorf("%s: the registry's state is %q, the table's %q", row.Name, spec.state, row.State)
		}
		if got, want := specOptionNames(spec, row.Records), row.optionNames(); !slices.Equal(got, want) {
			t.Errorf("%s: the registry's options are %v, the table's %v", row.Name, got, want)
		}
	}
}

func TestSpecTableTheRegistryHasNoCommandTheTableLacks(t *testing.T) {
	writers := map[string]bool{}
	for _, row := range commandTable(t) {
		writers[row.writer()] = true
	}
	for name := range commandSpecs {
		if !writers[name] {
			t.Errorf("the registry declares %s, which the table lacks", name)
		}
	}
}

func TestSpecTableEveryEditionHasEveryMethod(t *testing.T) {
	for _, edition := range []any{&Limiter{}, &MemoryLimiter{}, &recorder{}} {
		typ := reflect.TypeOf(edition)
		for _, row := range commandTable(t) {
			if _, has := typ.MethodByName(goMethod(*row.Method)); !has {
				t.Errorf("%v has no %s (%s)", typ, goMethod(*row.Method), row.Name)
			}
		}
	}
}

func TestSpecTableARefundRepeatsEveryOptionThatShapesTheLimit(t *testing.T) {
	want := []string{"name"} // the clients' own option: the policy's name in the headers
	for _, row := range commandTable(t) {
		for _, o := range row.Options {
			if !row.Records && o.Client != "cost" && !slices.Contains(want, o.Client) {
				want = append(want, o.Client)
			}
		}
	}
	var got []string
	for _, name := range keptByRefund() {
		got = append(got, name)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("a refund repeats %v, the table's shape options are %v", got, want)
	}
}

func TestSpecTableTheMemoryLimiterKeepsEachCommandsStateKind(t *testing.T) {
	for _, row := range commandTable(t) {
		state, err := newMemState(strings.TrimSuffix(row.Name, "_RO"), nil)
		if err != nil {
			t.Errorf("the memory limiter does not answer %s: %v", row.Name, err)
			continue
		}
		if state.kind() != row.State {
			t.Errorf("%s: the memory limiter keeps a %s, the table says %s", row.Name, state.kind(), row.State)
		}
	}
}

func TestSpecTableTheMemoryLimiterAnswersEveryCommand(t *testing.T) {
	for _, row := range commandTable(t) {
		// No arguments: the command's own parser answers (a range error), not the dispatch.
		if _, err := NewMemory().execute(row.Name, "key", nil); err == nil || strings.Contains(err.Error(), "unknown command") {
			t.Errorf("the memory limiter does not answer %s: %v", row.Name, err)
		}
	}
	if _, err := NewMemory().execute("WINLIMIT.NOPE", "key", []string{"1000", "5"}); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Errorf("the memory limiter answers a command the table lacks: %v", err)
	}
}
