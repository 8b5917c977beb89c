package sweep

import (
	"testing"

	"github.com/acemu/acemu/platform"
)

// FuzzSpec: no sweep file or --set list panics or builds a grid beyond
// MaxPoints; a spec that is accepted has a valid platform at every point.
func FuzzSpec(f *testing.F) {
	f.Add([]byte("set:\n  ace.sram: [1MiB, 4MiB]\n  ace.fsms: 4..16:4\nworkloads: [dlrm]\ntopologies: [4x2x1]\nsystems: [ace]\n"), "ace.fsms=4..20:4")
	f.Add([]byte("set: {ace.sram: 64KiB..1GiB:1B}\n"), "ace.sram=1MiB..8MiB:x2")
	f.Add([]byte("reference: {ace.fsms: 16}\n"), "npu.compute_speed=0.01..1000:x1.0001")
	f.Add([]byte("{}"), "links.tx_buffer=1..65536:1")
	f.Add([]byte("set: [a]"), "ace.partition=little,paper")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		file, err := ReadFile("fuzz.yaml", data)
		if err != nil {
			return
		}
		s, err := New(Request{Base: platform.Default(), Sets: append(file.Sets, set), Workloads: []string{"dlrm"},
			Topologies: []string{"4x2x1"}, Systems: []string{"ace"}, Reference: file.Reference})
		if err != nil {
			return
		}
		if s.Len() < 1 || s.Len() > MaxPoints {
			t.Fatalf("%d points", s.Len())
		}
		for c := 0; c < s.Combinations(); c++ {
			if _, err := s.Platform(s.Point(c * len(s.Workloads) * len(s.Topologies)).Values); err != nil {
				t.Fatalf("accepted point %d is not valid: %v", c, err)
			}
		}
	})
}
