package plots

import (
	"github.com/acemu/acemu/topology"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/testrun"
	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// run compares three systems on a two-layer workload, keeping the
// utilisation series.
func run(t *testing.T) *compare.Report {
	w := testrun.TwoLayers(t)
	shape, err := torus.Parse("4x2x1")
	require.NoError(t, err)
	ss := testrun.Systems(t, "baseline-commopt", "ace", "ideal")
	rep, err := compare.Run(compare.Options{Machine: topology.Torus(shape), Workload: w, Systems: ss, Iterations: 1, Series: true})
	require.NoError(t, err)
	return rep
}

// checkFigure checks that a figure's PNG decodes and that its SVG, when
// given, has the title, the axis labels and a legend entry per series.
func checkFigure(t *testing.T, paths []string, texts ...string) {
	f, err := os.Open(paths[0])
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err, paths[0])
	require.Positive(t, img.Bounds().Dx())
	require.Positive(t, img.Bounds().Dy())
	if len(paths) < 2 {
		return
	}
	svg, err := os.ReadFile(paths[1])
	require.NoError(t, err)
	for _, s := range texts {
		require.Contains(t, string(svg), s, paths[1])
	}
}

func TestUtilizationFigure(t *testing.T) {
	rep := run(t)
	paths, err := Utilization(rep, t.TempDir())
	require.NoError(t, err)
	require.Equal(t, "utilization.png", filepath.Base(paths[0]))
	checkFigure(t, paths, "Network (line) and compute (shaded) utilisation: small on 4x2x1 (8 NPUs)", "time (ms)", "links busy",
		"baseline-commopt", "ace", "ideal",
		`style="fill:#E1E1E1"`) // compute is a shaded area, not a line
	rep.Systems[0].NetworkUtilization = nil
	_, err = Utilization(rep, t.TempDir())
	require.ErrorContains(t, err, "utilisation plot: system baseline-commopt kept no utilisation over its")
	// A run of no time (a workload whose layers compute and communicate
	// nothing) has no windows: its panels are drawn empty, and say why.
	for i := range rep.Systems {
		rep.Systems[i].NetworkUtilization, rep.Systems[i].ComputeUtilization, rep.Systems[i].TotalCycles = nil, nil, 0
	}
	paths, err = Utilization(rep, t.TempDir())
	require.NoError(t, err)
	checkFigure(t, paths, "baseline-commopt (no time: nothing to compute or communicate)", "ace (no time: nothing to compute or communicate)", "time (ms)")
}

func TestBreakdownFigure(t *testing.T) {
	paths, err := Breakdown(run(t), t.TempDir())
	require.NoError(t, err)
	checkFigure(t, paths, "Iteration time", "time per iteration (ms)", "compute", "exposed communication",
		"baseline-commopt", "ace", "ideal")
}

// The reproductions' figures, each from a small real sweep: the PNG
// decodes, the SVG has its title, axes and series.
func TestReproductionFigures(t *testing.T) {
	f5o := reproduce.DefaultFig5()
	f5o.Topos, f5o.Size, f5o.MemGBps = []string{"4x2x2", "4x4x4"}, 1<<20, []int64{64, 450}
	f5, err := reproduce.Fig5(f5o)
	require.NoError(t, err)
	paths, err := Fig5(f5, t.TempDir())
	require.NoError(t, err)
	checkFigure(t, paths[:1]) // the PNG; the SVG's texts below
	svg, err := os.ReadFile(paths[1])
	require.NoError(t, err)
	for _, s := range []string{"Fig. 5: 1MiB all-reduce on 4x2x2", "on 4x4x4", "memory bandwidth for communication", "baseline (80 SMs)", "ACE", "ideal"} {
		require.Contains(t, string(svg), s)
	}

	f6o := reproduce.DefaultFig6()
	f6o.Topos, f6o.Size, f6o.SMs = []string{"4x2x2"}, 1<<20, []int{2, 8}
	f6, err := reproduce.Fig6(f6o)
	require.NoError(t, err)
	paths, err = Fig6(f6, t.TempDir())
	require.NoError(t, err)
	svg, err = os.ReadFile(paths[1])
	require.NoError(t, err)
	for _, s := range []string{"Fig. 6: 1MiB all-reduce on 4x2x2", "SMs given to communication", "baseline (900 GB/s of memory)", "ideal"} {
		require.Contains(t, string(svg), s)
	}

	f9o := reproduce.DefaultFig9a()
	f9o.SRAM, f9o.FSMs, f9o.Workloads, f9o.Topos = []int64{1 << 20, 4 << 20}, []int{4, 16}, []string{"dlrm"}, []string{"4x2x2"}
	f9, err := reproduce.Fig9a(f9o)
	require.NoError(t, err)
	paths, err = Fig9a(f9, t.TempDir())
	require.NoError(t, err)
	// One workload on one torus: the title names them (not a mean), and the
	// colour bar gives the scale.
	checkFigure(t, paths, "Fig. 9(a)", "(dlrm on 4x2x2)", "SRAM", "FSMs", "1MiB", "4MiB", "1.000", "perf vs base")
	f9.Runs = append(f9.Runs, reproduce.Fig9aRun{Workload: "gnmt", Topo: "4x2x2"})
	paths, err = Fig9a(f9, t.TempDir())
	require.NoError(t, err)
	checkFigure(t, paths, "(mean over 2 workloads on 4x2x2)")

	f11o := reproduce.DefaultFig11()
	f11o.Workloads, f11o.Topos, f11o.Platform.Iterations = []string{"dlrm"}, []string{"4x2x1", "4x2x2"}, 1
	f11, err := reproduce.Fig11(f11o)
	require.NoError(t, err)
	paths, err = Fig11(f11, t.TempDir())
	require.NoError(t, err)
	checkFigure(t, paths, "Fig. 11(a): dlrm", "Fig. 11(b): dlrm", "NPUs", "ACE over NoOverlap", "ACE over CompOpt", "exposed comm.", "Ideal")

	f9b, err := reproduce.Fig9b(reproduce.Fig9bOptions{Trained: f11o.Trained})
	require.NoError(t, err)
	paths, err = Fig9b(f9b, t.TempDir())
	require.NoError(t, err)
	checkFigure(t, paths, "Fig. 9(b)", "dlrm on 4x2x1", "dlrm on 4x2x2", "forward", "back-prop (paper)")
}
