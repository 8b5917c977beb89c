package compare

import (
	"runtime"
	"testing"

	"github.com/acemu/acemu/chakra"
	"github.com/acemu/acemu/chakra/gen"
	"github.com/acemu/acemu/chakra/runner"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
	"github.com/stretchr/testify/require"
)

// resnetLayers is the first n layers of ASTRA-sim 1.0's ResNet-50 file
// (testdata), a DATA workload whose passes keep their shapes.
func resnetLayers(t *testing.T, n int) *workload.Workload {
	w, err := workload.LoadAstraSim("../testdata/astrasim/Resnet50_DataParallel.txt")
	require.NoError(t, err)
	if n < len(w.Layers) {
		w.Layers = w.Layers[:n]
	}
	return w
}

// The key acceptance test (docs/chakra.md, "Equivalence"): the
// data-parallel trace the generator writes from an ASTRA-sim DATA file,
// run by the comparator on every NPU with durations read as nanoseconds,
// takes exactly the cycles of the file run by the training loop, on the
// ideal endpoint and the baselines, each iteration count, under both
// memory policies. Nothing is computed by hand here: the claim is that
// two different executions of the same schedule agree to the cycle.
func TestTraceEqualsItsASTRASimFile(t *testing.T) {
	shape, err := torus.Parse("4x2x2")
	require.NoError(t, err)
	m := topology.Torus(shape)
	for _, tc := range []struct {
		name   string
		layers int
		iters  int
		policy contend.Policy
	}{
		{"resnet50 first 6 layers, share", 6, 1, contend.Share},
		{"resnet50 first 6 layers, partition", 6, 1, contend.Partition},
		{"resnet50 first 6 layers, two iterations", 6, 2, contend.Share},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := resnetLayers(t, tc.layers)
			ss := presets(t, "ideal", "baseline-compopt", "baseline-commopt", "ace")
			want, err := Run(Options{Machine: m, Workload: w, Systems: ss, Iterations: tc.iters, Memory: tc.policy})
			require.NoError(t, err)
			set, err := gen.DataParallel(w, shape.Machine().N(), tc.iters)
			require.NoError(t, err)
			got, err := Run(Options{Machine: m, Trace: &Trace{Set: set, Units: runner.Nanos}, Systems: ss, Memory: tc.policy})
			require.NoError(t, err)
			for i := range ss {
				require.Equal(t, want.Systems[i].TotalCycles, got.Systems[i].TotalCycles, ss[i].Name)
				require.Equal(t, want.Systems[i].TotalCompute, got.Systems[i].TotalCompute, ss[i].Name)
				require.Equal(t, want.Systems[i].Collectives, got.Systems[i].Collectives, ss[i].Name)
			}
		})
	}
}

// A trace's report is the same run after run and whatever GOMAXPROCS is.
func TestTraceIsDeterministic(t *testing.T) {
	shape, err := torus.Parse("2x2x1")
	require.NoError(t, err)
	w := resnetLayers(t, 3)
	set, err := gen.DataParallel(w, 4, 2)
	require.NoError(t, err)
	o := Options{Machine: topology.Torus(shape), Trace: &Trace{Set: set, Units: runner.Nanos}, Systems: presets(t, "ideal", "baseline-compopt", "ace")}
	var reps []*Report
	for _, procs := range []int{1, 2, 1} {
		old := runtime.GOMAXPROCS(procs)
		rep, err := Run(o)
		runtime.GOMAXPROCS(old)
		require.NoError(t, err)
		reps = append(reps, rep)
	}
	require.Equal(t, reps[0], reps[1])
	require.Equal(t, reps[0], reps[2])
	require.False(t, reps[0].Folded)
	require.Equal(t, "Resnet50_DataParallel", reps[0].Workload)
}

// A collective on process groups runs on their partition through the
// AFI's listed groups; a group of another size than its partition's
// others is refused before any system runs.
func TestTraceProcessGroups(t *testing.T) {
	shape, err := torus.Parse("4x1x1")
	require.NoError(t, err)
	ar := func(pg string) []chakra.Node {
		return []chakra.Node{{ID: 1, Name: "ar", Type: chakra.CommCollNode, Attrs: []chakra.Attr{chakra.IntAttr("comm_type", int64(chakra.AllReduce)), chakra.IntAttr("comm_size", 1<<20), chakra.StringAttr("pg_name", pg)}}}
	}
	set := &chakra.Set{Name: "pg"}
	for _, pg := range []string{"a", "a", "b", "b"} {
		set.Ranks = append(set.Ranks, &chakra.Trace{Name: "pg", Nodes: ar(pg)})
	}
	o := Options{Machine: topology.Torus(shape), Systems: presets(t, "ideal"),
		Trace: &Trace{Set: set, Units: runner.Micros, Groups: map[string][]int{"a": {0, 1}, "b": {2, 3}}}}
	rep, err := Run(o)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Systems[0].Collectives)
	require.Positive(t, rep.Systems[0].TotalCycles)
	// What the checks and ACE's layout are told: one all-reduce of 1 MiB
	// on the partition {0,1},{2,3}, two NPUs a group, not on every NPU.
	list, err := o.collectives()
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, train.Group{Groups: [][]int{{0, 1}, {2, 3}}, Size: 2}, list[0].group)
	require.Equal(t, int64(1<<20), list[0].Bytes)
	o.Systems = presets(t, "ideal", "ace") // ACE laid out for the groups' all-reduce
	_, err = Run(o)
	require.NoError(t, err)
	o.Trace.Groups = map[string][]int{"a": {0, 1}, "b": {2, 3, 1}}
	_, err = Run(o)
	require.ErrorContains(t, err, `process group "a" [0 1] does not fit the machine`)
}
