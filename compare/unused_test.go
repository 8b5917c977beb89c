package compare

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/internal/testrun"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/workload"
)

// Which keys a comparison reads: each case names a key and a run, and
// whether the run reads the key (why == "") or a phrase of the reason it
// does not.
func TestUsesUnused(t *testing.T) {
	sys := func(names ...string) []systems.System { return testrun.Systems(t, names...) }
	// A workload of one layer whose weight gradient issues t.
	issuing := func(name string, t workload.CommType) *workload.Workload {
		return &workload.Workload{Name: name, Layers: []workload.Layer{{Name: "l", WtGradComm: workload.Comm{Type: t, Bytes: 1024}}}}
	}
	ar, a2a := issuing("ar", workload.CommAllReduce), issuing("a2a", workload.CommAllToAll)
	for _, c := range []struct {
		name string
		key  string
		uses Uses
		why  string
	}{
		{"baseline library, no baseline", "baseline.step", Uses{Systems: sys("ace", "ideal"), Workloads: []*workload.Workload{ar}}, "the systems (ace,ideal) include no baseline"},
		{"baseline library, a baseline", "baseline.launch", Uses{Systems: sys("ideal", "baseline-compopt"), Workloads: []*workload.Workload{ar}}, ""},
		{"all-reduce algorithm, all-reduces", "collectives.allreduce", Uses{Systems: sys("ideal"), Workloads: []*workload.Workload{ar}}, ""},
		{"all-to-all algorithm, all-reduces only", "collectives.all_to_all", Uses{Systems: sys("ideal"), Workloads: []*workload.Workload{ar}}, "no workload (ar) issues an all-to-all"},
		{"reduce-scatter algorithm, none", "collectives.reduce_scatter", Uses{Systems: sys("ideal"), Workloads: []*workload.Workload{ar, a2a}}, "no workload (ar,a2a) issues a reduce-scatter"},
		{"all-to-all algorithm, one of two", "collectives.all_to_all", Uses{Systems: sys("ideal"), Workloads: []*workload.Workload{ar, a2a}}, ""},
		{"batch, files only", "training.batch", Uses{Systems: sys("ideal"), Workloads: []*workload.Workload{ar}}, "the workloads (ar) are files"},
		{"compute, files only", "training.compute", Uses{Systems: sys("ideal"), Workloads: []*workload.Workload{ar}}, "whose compute is their own"},
		{"batch, a built-in", "training.batch", Uses{Systems: sys("ideal"), Workloads: []*workload.Workload{ar}, Builtin: true}, ""},
		{"a key every run reads", "afi.chunk", Uses{Systems: sys("ideal")}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			why := c.uses.Unused(c.key)
			if c.why == "" {
				require.Empty(t, why)
				return
			}
			require.Contains(t, why, c.why)
		})
	}
}
