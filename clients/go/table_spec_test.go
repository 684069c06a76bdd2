package winlimit

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The client's lists of commands are the module's command table
// (clients/spec/command_table.json, generated from src/redis/commands.rs): the methods a
// middleware's Recorder records, the options a refund repeats, and the commands the memory
// limiter answers. Each test fails naming the row a list misses, as the Python and Node
// clients' spec-table tests do.
type tableRow struct {
	Name    string  `json:"name"`
	Records bool    `json:"records"`
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

// goMethod is a table method's Go name: Slide, Fixed, GCRA.
func goMethod(method string) string {
	if method == "gcra" {
		return "GCRA"
	}
	return strings.ToUpper(method[:1]) + method[1:]
}

func TestSpecTableTheRecorderRecordsEveryRecordingMethod(t *testing.T) {
	recorder := reflect.TypeOf(&Recorder{})
	for _, row := range commandTable(t) {
		if _, has := recorder.MethodByName(goMethod(*row.Method)); row.Records && !has {
			t.Errorf("the Recorder has no %s (%s)", goMethod(*row.Method), row.Name)
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
	for _, name := range keptByRefund {
		got = append(got, name)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("a refund repeats %v, the table's shape options are %v", got, want)
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
