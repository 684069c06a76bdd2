package winlimit

import (
	"strings"
	"testing"
)

// plainCounter is a counter command that takes no ALIGN, as a new fixed-window command
// might be; it is not registered, so the table's tests never see it.
var plainCounter = &commandSpec{name: "WINLIMIT.PLAIN", method: "Plain", state: stateCounter}

func TestACounterCommandWithoutAlignRefusesIt(t *testing.T) {
	_, err := NewMemory().decideOn(plainCounter, &counterState{}, 1_000, []string{"1000", "5", "align"}, false)
	if err == nil || err.Error() != "ERR unknown option 'ALIGN'" {
		t.Fatalf("got %v, want the module's unknown option 'ALIGN'", err)
	}
}

func TestACounterCommandWithoutAlignDecidesWithoutIt(t *testing.T) {
	r, err := NewMemory().decideOn(plainCounter, &counterState{}, 1_000, []string{"1000", "5"}, false)
	if err != nil || r[0] != 1 || r[2] != 4 { // allowed, remaining
		t.Fatalf("got %+v, %v; want the first of 5 allowed", r, err)
	}
}

func TestTheStateKindsParserAnswersBeforeTheForeignOptionIsRefused(t *testing.T) {
	_, err := NewMemory().decideOn(plainCounter, &counterState{}, 1_000, []string{"0", "5", "ALIGN"}, false)
	if err == nil || !strings.Contains(err.Error(), "window_ms") {
		t.Fatalf("got %v, want the counter parser's window_ms range error", err)
	}
}

func TestFixedTakesAlign(t *testing.T) {
	if err := fixedCommand.refuseForeignShape([]string{"1000", "5", "ALIGN"}); err != nil {
		t.Fatalf("FIXED refuses its own ALIGN: %v", err)
	}
}
