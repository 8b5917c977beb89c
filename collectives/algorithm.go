package collectives

import (
	"fmt"
	"sort"
	"strings"

	"github.com/acemu/acemu/machine"
)

// Algorithm turns a collective into programs. Implementations are pure and
// deterministic: the same arguments give the same programs.
type Algorithm interface {
	// Phases names the phases in order, e.g. "reduce-scatter on local".
	Phases() []string
	// Build returns NPU npu's program for every phase, for one chunk of
	// chunkLen bytes. Views are ranges of the chunk.
	Build(npu int, chunkLen int64) ([]*Program, error)
	// Input returns the chunk ranges NPU npu holds data in before the
	// collective; nil means the whole chunk. Only an all-gather narrows it.
	Input(npu int, chunkLen int64) []Range
	// Output returns the chunk ranges that hold NPU npu's result; nil means
	// the whole chunk. Only a reduce-scatter narrows it.
	Output(npu int, chunkLen int64) []Range
}

// Config is what an algorithm is built for.
type Config struct {
	// Machine is the machine the collective runs on: its NPUs and the
	// dimensions collectives are built over.
	Machine *machine.Machine
	Op      CollectiveOp
	// MessageBytes is the largest message (Table V: 8 KB).
	MessageBytes int64
	// Unidirectional runs ring phases one way only (default: both ways, half
	// the data each).
	Unidirectional bool
	// Factors is BlueConnect's factorisation of the NPU count, lowest tier
	// first; empty means the machine's dimensions' sizes (the torus's L,
	// V, H), dropping 1s.
	Factors []int
	// PhaseSpec is the hierarchical algorithm's phase list, e.g.
	// "rs:local:ring,ar:vertical:ring,ar:horizontal:ring,ag:local:ring";
	// empty means the paper's default for the collective.
	PhaseSpec string
	// Span names the dimensions (axes, by name or short name) the
	// collective combines: its communicator is each NPU's group of them
	// (span.go). Empty: every dimension, every NPU.
	Span []string
	// Groups, when not nil, is the communicator as listed sets of NPUs: a
	// partition of the NPUs into equally large groups, each group's
	// members in the order given (its ring order; messages are routed),
	// each group combining its own data, all groups at once (span.go). It
	// excludes Span.
	Groups [][]int
}

// Factory builds an algorithm for a configuration.
type Factory func(Config) (Algorithm, error)

// AlgorithmInfo describes a registered algorithm.
type AlgorithmInfo struct {
	Name string
	Ops  []CollectiveOp
	Help string
	f    Factory
}

var registry = map[string]*AlgorithmInfo{}

// Register adds an algorithm under name, for the collectives in ops. It
// panics on a duplicate name: registration happens at init.
func Register(name string, ops []CollectiveOp, help string, f Factory) {
	if _, dup := registry[name]; dup {
		panic("collectives: algorithm " + name + " registered twice")
	}
	registry[name] = &AlgorithmInfo{Name: name, Ops: ops, Help: help, f: f}
}

// Algorithms lists the registered algorithms by name.
func Algorithms() []AlgorithmInfo {
	out := make([]AlgorithmInfo, 0, len(registry))
	for _, a := range registry {
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DefaultAlgorithm returns the algorithm used when none is named: the
// paper's hierarchical scheme, or direct for all-to-all.
func DefaultAlgorithm(op CollectiveOp) string {
	if op == OpAllToAll {
		return "direct"
	}
	return "hierarchical"
}

// CheckAlgorithm reports whether name is a registered algorithm that runs
// op, naming the choices when it is not.
func CheckAlgorithm(name string, op CollectiveOp) error {
	a, ok := registry[name]
	if !ok {
		var names []string
		for _, x := range Algorithms() {
			names = append(names, x.Name)
		}
		return fmt.Errorf("algorithm %q: want one of %s", name, strings.Join(names, ", "))
	}
	var ops []string
	for _, o := range a.Ops {
		if o == op {
			return nil
		}
		ops = append(ops, o.String())
	}
	return fmt.Errorf("algorithm %s does not run %s; it runs %s", name, op, strings.Join(ops, ", "))
}

// NewAlgorithm builds the named algorithm for cfg.
func NewAlgorithm(name string, cfg Config) (Algorithm, error) {
	if err := CheckAlgorithm(name, cfg.Op); err != nil {
		return nil, err
	}
	a := registry[name]
	if cfg.Machine == nil {
		return nil, fmt.Errorf("algorithm %s: no machine to run on", name)
	}
	if cfg.MessageBytes < 1 {
		return nil, fmt.Errorf("message size %d bytes: must be at least 1 byte", cfg.MessageBytes)
	}
	if len(cfg.Span) > 0 && cfg.Groups != nil {
		return nil, fmt.Errorf("a communicator of dimensions (%s) and one of listed groups of NPUs (%s): name one or the other",
			strings.Join(cfg.Span, ","), FormatGroups(cfg.Groups))
	}
	if cfg.spanned() {
		if name != "hierarchical" || cfg.Op == OpAllToAll {
			return nil, fmt.Errorf("a collective over %s runs the hierarchical all-reduce, reduce-scatter or all-gather; %s %s spans every NPU, so leave the %s out",
				cfg.spanDesc(), name, cfg.Op, cfg.spanWord())
		}
		if _, err := cfg.spanAxes(); err != nil {
			return nil, err
		}
	}
	alg, err := a.f(cfg)
	if err != nil {
		return nil, fmt.Errorf("algorithm %s: %w", name, err)
	}
	return alg, nil
}
