package winlimit

import (
	"slices"
	"strings"
	"sync"
)

// stateKind is what a command keeps under its key, by the names clients/spec/command_table.json
// gives them ("state"): the memory limiter picks its state from it, never from the command's
// name. A log command with the BUCKET option keeps a ring of buckets instead.
type stateKind string

const (
	stateLog     stateKind = "log"
	stateCounter stateKind = "counter"
	stateTat     stateKind = "tat"
)

// commandSpec is one command this client sends, declared once beside its builder: the
// module's writer (the reader is its _RO form), the Go method that sends it, the state it
// keeps, and the options that shape its limit (the reader's options but COST). Every command
// also takes Cost, Refund, Block, Peek and Name.
type commandSpec struct {
	name    string
	method  string
	state   stateKind
	shape   []optionKind
	allowed []optionKind // commonOptions and shape, built once: options() is on every call
	// writer and reader are the command's words already boxed as a line's first argument:
	// boxing a string allocates, and the words are on every call.
	writer, reader any
}

// commandSpecs holds every defineCommand, by the writer's name.
var commandSpecs = map[string]*commandSpec{}

// defineCommand registers spec; a command file calls it from its init.
func defineCommand(spec commandSpec) *commandSpec {
	spec.allowed = slices.Clip(append(slices.Clone(commonOptions), spec.shape...))
	spec.writer, spec.reader = spec.name, spec.name+"_RO"
	commandSpecs[spec.name] = &spec
	return &spec
}

// commonOptions are what every command takes besides its shape.
var commonOptions = []optionKind{optCost, optRefund, optBlock, optPeek, optName}

// options are the CallOption kinds the command's method takes.
func (s *commandSpec) options() []optionKind {
	return s.allowed
}

// word is the command to send: the reader (the _RO form) for a peek, else the writer.
func (s *commandSpec) word(peek bool) any {
	if peek {
		return s.reader
	}
	return s.writer
}

// refuseForeignShape refuses, once the state kind's parser has taken the words, a shape
// option of that kind that the command does not take (a counter parses ALIGN for FIXED; a
// counter command without it refuses it), as the module's parser for the command does.
// Option values are integers, so a word that is the option's token is the option.
func (s *commandSpec) refuseForeignShape(words []string) error {
	for _, other := range commandSpecs {
		if other.state != s.state {
			continue
		}
		for _, kind := range other.shape {
			if slices.Contains(s.shape, kind) {
				continue
			}
			token := strings.ToUpper(optionNames[kind])
			for _, word := range words {
				if strings.ToUpper(word) == token {
					return unknownOption(token)
				}
			}
		}
	}
	return nil
}

// keptByRefund are the options a refund repeats, by the names clients/spec/command_table.json
// gives them: every option that shapes some command's limit, and the policy's name.
var keptByRefund = sync.OnceValue(func() map[optionKind]string {
	kept := map[optionKind]string{optName: optionNames[optName]}
	for _, spec := range commandSpecs {
		for _, kind := range spec.shape {
			kept[kind] = optionNames[kind]
		}
	}
	return kept
})
