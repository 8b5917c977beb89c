package collectives

import (
	"testing"

	"github.com/acemu/acemu/torus"
)

// FuzzParsePhases: no --phases list panics, on its own or as the
// hierarchical algorithm's phases; a list that makes an algorithm builds
// every NPU's programs.
func FuzzParsePhases(f *testing.F) {
	for _, s := range []string{"rs:local:ring,ar:vertical:ring,ar:horizontal:ring,ag:local:ring", "ar:local", "rs:local,rs:local,ag:local,ag:local",
		"rs:l:halving-doubling,ar:v,ar:h,ag:l:halving-doubling", "ag:horizontal,ag:vertical,ag:local", "xx:yy:zz", ":::", "", "rs:local,ag:vertical"} {
		f.Add(s, uint8(0))
	}
	shape := torus.Shape{L: 4, V: 2, H: 2}
	f.Fuzz(func(t *testing.T, spec string, op uint8) {
		cfg := Config{Machine: shape.Machine(), Op: CollectiveOp(op % 3), MessageBytes: 8192, PhaseSpec: spec}
		phases, err := ParsePhases(cfg.dims(), shape.String(), spec)
		if err != nil {
			return
		}
		h, err := NewHierarchical(cfg, phases)
		if err != nil {
			return
		}
		for npu := 0; npu < shape.N(); npu++ {
			if _, err := h.Build(npu, 4096); err != nil {
				return // a per-phase algorithm may refuse a size; that is an error, not a panic
			}
		}
	})
}
