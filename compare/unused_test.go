package compare

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/internal/testrun"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
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
			why := c.uses.Unused(c.key) // "" when the run reads the key
			require.Equal(t, c.why == "", why == "", "Unused(%s) = %q", c.key, why)
			require.Contains(t, why, c.why)
		})
	}
}

// Which link classes a built-in machine's links take: a torus of one
// package (Lx1x1) has intra-package links only, one ring of packages
// (1xVx1) inter-package ones only, dgx1 nvlink (the inter-package link's
// class) only, a switch fabric of one tier tier0 (intra) only.
func TestReadsLinkKey(t *testing.T) {
	for _, c := range []struct {
		topo, key, value string
		reads            bool
	}{
		{"4x1x1", "links.intra.latency", "10", true},
		{"4x1x1", "links.inter.latency", "10", false},
		{"1x4x1", "links.inter.bandwidth", "50GB/s", true},
		{"1x4x1", "links.intra.bandwidth", "50GB/s", false},
		{"4x2x2", "links.nvlink.latency", "10", false},
		{"dgx1", "links.nvlink.latency", "10", true},
		{"dgx1", "links.inter.latency", "10", true}, // nvlink follows it
		{"dgx1", "links.intra.latency", "10", false},
		{"switch:8", "links.intra.latency", "10", true},
		{"switch:8", "links.inter.latency", "10", false},
		{"switch:4x2", "links.inter.latency", "10", true},
	} {
		t.Run(c.topo+" "+c.key, func(t *testing.T) {
			spec, err := topology.Parse(c.topo)
			require.NoError(t, err)
			p := platform.Default()
			require.NoError(t, p.Set(c.key, c.value))
			require.Equal(t, c.reads, ReadsLinkKey(p, spec, c.key))
		})
	}
	// dgx1 with nvlink's latency of its own: the inter-package link's
	// latency reaches no link.
	spec, err := topology.Parse("dgx1")
	require.NoError(t, err)
	p := platform.Default()
	require.NoError(t, p.Set("links.nvlink.latency", "10"))
	require.NoError(t, p.Set("links.inter.latency", "20"))
	require.False(t, ReadsLinkKey(p, spec, "links.inter.latency"))
}
