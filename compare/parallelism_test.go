package compare

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/workload"
)

// ASTRA-sim 1.0's model, hybrid and MICRO files run on the systems that
// take every collective kind, and one NPU standing for all (folded) gives
// exactly the numbers of every NPU simulated (--full): the groups' plans
// are the same on every NPU up to a translation, as the fold requires
// (docs/parallelism.md). On a switch fabric, which does not fold, they run
// too.
func TestParallelismFilesFoldExactly(t *testing.T) {
	files := []string{"MLP_ModelParallel.txt", "MLP_HybridParallel_Data_Model.txt", "MLP_HybridParallel_Model_Data.txt",
		"sample_per_layer_parallel_HybridCustomized.txt", "microAllReduce.txt", "microAllToAll.txt"}
	p := platform.Default()
	p.Iterations = 1
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			w, err := workload.LoadAstraSim(filepath.Join("../testdata/astrasim", f))
			require.NoError(t, err)
			m, err := topology.Parse("4x2x2")
			require.NoError(t, err)
			o, err := PlatformOptions(p)
			require.NoError(t, err)
			o.Machine, o.Workload, o.Systems = m, w, presets(t, "ideal", "baseline-commopt", "baseline-nooverlap")
			folded, err := Run(o)
			require.NoError(t, err)
			require.True(t, folded.Folded)
			o.Full = true
			full, err := Run(o)
			require.NoError(t, err)
			require.False(t, full.Folded)
			for i, r := range folded.Systems {
				require.Equal(t, full.Systems[i].PerIteration, r.PerIteration, r.Name)
				require.Equal(t, full.Systems[i].BytesSentPerNPU, r.BytesSentPerNPU, r.Name)
				require.Equal(t, r.TotalCycles, r.TotalCompute+r.TotalExposedComm, r.Name)
				require.Positive(t, r.BytesSentPerNPU, r.Name)
			}
			sw, err := topology.Parse("switch:4x4")
			require.NoError(t, err)
			o.Machine, o.Full = sw, false
			rep, err := Run(o)
			require.NoError(t, err)
			require.False(t, rep.Folded)
		})
	}
}

// A MICRO workload's collectives are what every system issues, a system
// without overlap too (it fuses nothing): the fold and size checks see
// them (Options.issued).
func TestMicroIssuedOnEverySystem(t *testing.T) {
	w, err := workload.LoadAstraSim("../testdata/astrasim/microAllReduce.txt")
	require.NoError(t, err)
	m, err := topology.Parse("4x4x4")
	require.NoError(t, err)
	o := Options{Machine: m, Workload: w, Systems: presets(t, "baseline-nooverlap")}
	list, err := o.issued()
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, workload.Comm{Type: workload.CommAllReduce, Bytes: 1 << 20}, list[0].Comm)
}

// Each of ASTRA-sim 1.0's files but the two Transformers (minutes each:
// scripts/astrasim-files.sh runs them) trains on the ACE paper's tori on
// the five systems, one iteration: each run adds up (compute plus exposed
// communication), and each exposes some communication.
func TestASTRASimFilesOnThePapersTori(t *testing.T) {
	files, err := filepath.Glob("../testdata/astrasim/*.txt")
	require.NoError(t, err)
	require.Len(t, files, 10)
	p := platform.Default()
	p.Iterations = 1
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "Transformer") {
			continue
		}
		for _, topo := range []string{"4x4x4", "4x8x4"} {
			t.Run(filepath.Base(f)+"/"+topo, func(t *testing.T) {
				w, err := workload.LoadAstraSim(f)
				require.NoError(t, err)
				m, err := topology.Parse(topo)
				require.NoError(t, err)
				o, err := PlatformOptions(p)
				require.NoError(t, err)
				o.Machine, o.Workload, o.Systems = m, w, presets(t, systems.Names()[:5]...)
				rep, err := Run(o)
				require.NoError(t, err)
				require.Len(t, rep.Systems, 5)
				for _, r := range rep.Systems {
					require.Equal(t, r.TotalCycles, r.TotalCompute+r.TotalExposedComm, r.Name)
					require.Positive(t, r.TotalExposedComm, r.Name)
				}
			})
		}
	}
}
