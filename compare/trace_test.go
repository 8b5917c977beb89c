package compare

import (
	"testing"

	"github.com/acemu/acemu/chakra/gen"
	"github.com/acemu/acemu/chakra/runner"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/torus"
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
