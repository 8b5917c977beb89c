package plots

import (
	"bytes"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/testrun"
	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
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

// checkFigure checks that a figure's PNG decodes (every chunk's CRC
// checked, the resolution's too), is 6.5 in at 300 dpi wide (1950 px)
// and says it is at 300 dpi, and that its SVG has texts (titles, axis
// labels, legend entries); it returns the SVG.
func checkFigure(t *testing.T, paths []string, texts ...string) string {
	require.Len(t, paths, 2)
	require.Equal(t, ".png", filepath.Ext(paths[0]))
	require.Equal(t, ".svg", filepath.Ext(paths[1]))
	b, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err, paths[0])
	require.Equal(t, 1950, img.Bounds().Dx(), "6.5 in × 300 dpi")
	// Between 2 and 9 in high: 600 to 2700 px.
	require.GreaterOrEqual(t, img.Bounds().Dy(), 600)
	require.LessOrEqual(t, img.Bounds().Dy(), 2700)
	// The pHYs chunk after the header (8 B signature, 25 B IHDR): 9 data
	// bytes, 300 dpi = 300 / 0.0254 = 11811.02 → 11811 = 0x2E23 pixels a
	// metre each way, unit 1 (the metre).
	require.Equal(t, []byte{0, 0, 0, 9, 'p', 'H', 'Y', 's', 0, 0, 0x2E, 0x23, 0, 0, 0x2E, 0x23, 1}, b[33:33+17])
	b, err = os.ReadFile(paths[1])
	require.NoError(t, err)
	svg := html.UnescapeString(string(b)) // the SVG writes ' as &#39;
	for _, s := range texts {
		require.True(t, strings.Contains(svg, s), "%s has no %q", paths[1], s)
	}
	return svg
}

func TestPlotUtilization(t *testing.T) {
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

func TestPlotBreakdown(t *testing.T) {
	paths, err := Breakdown(run(t), t.TempDir())
	require.NoError(t, err)
	checkFigure(t, paths, "Iteration time", "time per iteration (ms)", "compute", "exposed communication",
		"baseline-commopt", "ace", "ideal")
}

// fig5Result is a hand-made Fig. 5 sweep: two topologies, three memory
// points (the validation report's 64 MiB figures), the thresholds as the
// sweep states them.
func fig5Result() *reproduce.Fig5Result {
	return &reproduce.Fig5Result{Size: 64 << 20,
		Rows: []reproduce.Fig5Row{
			{Topo: "4x2x2", MemGBps: 128, BaselineBW: 73.1, ACEBW: 248.9, IdealBW: 373.0},
			{Topo: "4x2x2", MemGBps: 192, BaselineBW: 109.6, ACEBW: 359.3, IdealBW: 373.0},
			{Topo: "4x2x2", MemGBps: 450, BaselineBW: 253.8, ACEBW: 357.4, IdealBW: 373.0},
			{Topo: "4x4x4", MemGBps: 128, BaselineBW: 76.7, ACEBW: 277.2, IdealBW: 278.6},
			{Topo: "4x4x4", MemGBps: 192, BaselineBW: 114.9, ACEBW: 278.9, IdealBW: 278.6},
			{Topo: "4x4x4", MemGBps: 450, BaselineBW: 266.3, ACEBW: 279.1, IdealBW: 278.6},
		},
		Thresholds: []reproduce.Threshold{{Topo: "4x2x2", ACE: 192}, {Topo: "4x4x4", Baseline: 450, ACE: 128, Ratio: 3.52}},
	}
}

// fig6Result is a hand-made Fig. 6 sweep on one topology.
func fig6Result() *reproduce.Fig6Result {
	return &reproduce.Fig6Result{Size: 64 << 20, MemGBps: 900,
		Rows: []reproduce.Fig6Row{
			{Topo: "4x4x4", SMs: 4, BaselineBW: 169.1, IdealBW: 278.6},
			{Topo: "4x4x4", SMs: 6, BaselineBW: 272.9, IdealBW: 278.6},
			{Topo: "4x4x4", SMs: 8, BaselineBW: 278.0, IdealBW: 278.6},
		},
		Thresholds: []reproduce.Threshold{{Topo: "4x4x4", Baseline: 6}},
	}
}

// fig9aResult is a hand-made 2 × 2 design-point grid.
func fig9aResult() *reproduce.Fig9aResult {
	return &reproduce.Fig9aResult{BaseSRAM: 4 << 20, BaseFSMs: 16,
		Runs: []reproduce.Fig9aRun{{Workload: "dlrm", Topo: "4x2x2"}},
		Cells: []reproduce.Fig9aCell{
			{SRAM: 1 << 20, FSMs: 4, Perf: 0.504}, {SRAM: 1 << 20, FSMs: 16, Perf: 0.999},
			{SRAM: 4 << 20, FSMs: 4, Perf: 0.504}, {SRAM: 4 << 20, FSMs: 16, Perf: 1},
		}}
}

// fig11Result is a hand-made scaling study: one workload on two sizes.
func fig11Result() *reproduce.Fig11Result {
	res := &reproduce.Fig11Result{}
	for i, n := range []int{16, 64} {
		row := reproduce.Fig11Row{Workload: "dlrm", Topo: []string{"4x2x2", "4x4x4"}[i], NPUs: n}
		for _, s := range reproduce.Fig11Systems {
			row.Systems = append(row.Systems, reproduce.Fig11System{Name: s, ComputeCycles: 2_000_000, ExposedCycles: int64(100_000 * (i + 1)), ACESpeedup: 1.1})
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}

// fig4Result is a hand-made microbenchmark on one topology (the
// validation report's 4x2x2 figures for CommOpt and ACE).
func fig4Result() *reproduce.Fig4Result {
	return &reproduce.Fig4Result{Policy: "share", Size: 100_000_000, Rows: []reproduce.Fig4Row{
		{Topo: "4x2x2", System: "baseline-commopt", CommSlowdown: 1},
		{Topo: "4x2x2", System: "baseline-commopt", Kernel: "GEMM 1000", CommSlowdown: 1.397, KernelSlowdown: 1.081},
		{Topo: "4x2x2", System: "baseline-commopt", Kernel: "EmbLookup 10000", CommSlowdown: 1.483, KernelSlowdown: 1.109},
		{Topo: "4x2x2", System: "ace", CommSlowdown: 1},
		{Topo: "4x2x2", System: "ace", Kernel: "GEMM 1000", CommSlowdown: 1, KernelSlowdown: 1},
		{Topo: "4x2x2", System: "ace", Kernel: "EmbLookup 10000", CommSlowdown: 1, KernelSlowdown: 1},
	}}
}

// ccubeRows are a hand-made Fig. 12(a) comparison at 1 and 64 MiB.
func ccubeRows() []reproduce.CCubeRow {
	return []reproduce.CCubeRow{
		{Size: 1 << 20, Endpoint: reproduce.Ideal, Chunk: 1 << 20, Gain: 0.805, Model: 0.887},
		{Size: 1 << 20, Endpoint: reproduce.ACE, Chunk: 64 << 10, Gain: 0.249},
		{Size: 64 << 20, Endpoint: reproduce.Ideal, Chunk: 64 << 20, Gain: 0.996, Model: 0.998},
		{Size: 64 << 20, Endpoint: reproduce.ACE, Chunk: 64 << 10, Gain: 0.009},
	}
}

// ccubeTrainingRows are a hand-made Fig. 13 run: B, C1 and CC on two
// systems.
func ccubeTrainingRows() []reproduce.CCubeTrainingRow {
	var rows []reproduce.CCubeTrainingRow
	for _, s := range []string{"baseline-commopt", "ace"} {
		for i, c := range []string{"B", "C1", "CC"} {
			rows = append(rows, reproduce.CCubeTrainingRow{Workload: "resnet50", System: s, Config: c, Gain: 0.1 * float64(i)})
		}
	}
	return rows
}

// blueConnectResult is a hand-made sweep of the paper's 100 MB on 4 and
// 192 GPUs (the validation report's figures).
func blueConnectResult() *reproduce.BlueConnectResult {
	return &reproduce.BlueConnectResult{Size: 100_000_000, Rows: []reproduce.BlueConnectRow{
		{Fabric: "switch:4", NPUs: 4, Ms: []float64{4.987, 9.792, 4.987}, ModelMs: []float64{4.688, 9.375, 4.688}},
		{Fabric: "switch:4x16x3", NPUs: 192, Ms: []float64{18.410, 23.088, 17.750}, ModelMs: []float64{15.917, 25.042, 20.354}},
	}}
}

// Every reproduction's figure, from a hand-made result: both files, the
// PNG's size and resolution, and in the SVG the texts a reader needs, the
// dashed lines (Figs. 5 and 6: the 90 % line per panel and its legend key)
// and the colour bar (Fig. 9(a), the one image).
func TestPlotReproductions(t *testing.T) {
	const dashed = "stroke-dasharray:5,3" // the 90 % line's and the papers' lines' dashes
	for _, tc := range []struct {
		name   string
		draw   func(dir string) ([]string, error)
		texts  []string
		dashes int // lines dashed 5,3: a panel's each, one more for the legend's key
		images int // raster images: the colour bar
	}{
		{"fig5", func(d string) ([]string, error) { return Fig5(fig5Result(), d) },
			[]string{"Fig. 5: network bandwidth of a 64MiB all-reduce", "4x2x2", "4x4x4", "memory bandwidth for comm. (GB/s, each way)", "network bandwidth (GB/s per NPU)",
				"baseline (80 SMs)", "ACE", "ideal", ">90 % of ideal<", "first point at 90 % of ideal",
				"90 % of ideal first at: baseline not reached, ACE 192 GB/s", "90 % of ideal first at: baseline 450 GB/s, ACE 128 GB/s"},
			2 + 1, 0},
		{"fig6", func(d string) ([]string, error) { return Fig6(fig6Result(), d) },
			[]string{"Fig. 6: network bandwidth of a 64MiB all-reduce on the baseline against the SMs", "SMs for communication", "baseline (900 GB/s of memory)",
				">90 % of ideal<", "90 % of ideal first at: 6 SMs"},
			1 + 1, 0},
		{"fig9a", func(d string) ([]string, error) { return Fig9a(fig9aResult(), d) },
			[]string{"Fig. 9(a): ACE's performance against 4MiB and 16 FSMs", "(dlrm on 4x2x2)", "ACE's SRAM", "FSMs", "1MiB", "4MiB", ">4<", ">16<",
				"0.504", "0.999", "1.000", "performance against the base point (×)"},
			0, 1},
		{"fig9b", func(d string) ([]string, error) {
			return Fig9b(&reproduce.Fig9bResult{Rows: []reproduce.Fig9bRow{{Workload: "dlrm", Topo: "4x8x4", Forward: 0.1, Backprop: 0.8, PaperBackprop: 0.883}}}, d)
		}, []string{"Fig. 9(b)", "dlrm on 4x8x4", "forward", "back-propagation", "back-propagation (paper)", "% of the pass's time"}, 0, 0},
		{"fig11", func(d string) ([]string, error) { return Fig11(fig11Result(), d) },
			[]string{"Fig. 11", "(a) dlrm", "(b) dlrm", "NPUs", ">16<", ">64<", "time (ms, all iterations)", "ACE over NoOverlap", "ACE over CompOpt", "exposed communication", "Ideal", "no speed-up"},
			0, 0},
		{"fig4", func(d string) ([]string, error) { return Fig4(fig4Result(), d) },
			[]string{"Fig. 4(a): slowdown of a 100MB all-reduce", "memory policy share", "4x2x2: the all-reduce", "4x2x2: the kernel", "CommOpt", "ACE",
				"beside GEMM 1000", "beside EmbLookup 10000", "paper (100 MB), beside GEMM 1000 (1.16×)", "paper (100 MB), beside EmbLookup 10000 (1.42×)", "slowdown (×, beside / alone)"},
			2 + 2, 0}, // the paper's two lines and their keys
		{"ccube-fig12a", func(d string) ([]string, error) { return CCubeFig12a(ccubeRows(), d) },
			[]string{"C-Cube Fig. 12(a)", "all-reduce size per GPU", "C1's gain over B (%)", "1MiB", "64MiB", "ideal, one-shot", "ACE, 64KiB chunks",
				"the paper's model, one-shot (Eqs. (5), (7))", "the paper, measured on a DGX-1 (Fig. 12(a))"}, 0, 0},
		{"ccube-fig13", func(d string) ([]string, error) { return CCubeFig13(ccubeTrainingRows(), d) },
			[]string{"C-Cube Fig. 13", "resnet50", "configuration", "throughput over B (×)", ">B<", ">C1<", ">CC<", "CommOpt", "ACE",
				"the paper, mean over its runs", "the paper, largest", "B's throughput"}, 0, 0},
		{"blueconnect-fig3", func(d string) ([]string, error) { return BlueConnectFig3(blueConnectResult(), d) },
			[]string{"BlueConnect Fig. 3: a 100MB all-reduce", "GPUs", ">4<", ">192<", "all-reduce time (ms)", "Ring", "GLOO", "BLC", "BLC, α-β model",
				"GLOO, the paper's measured overhead, 192 GPUs", "BLC, the paper's measured overhead, 192 GPUs"}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := tc.draw(dir)
			require.NoError(t, err)
			require.Equal(t, []string{filepath.Join(dir, tc.name+".png"), filepath.Join(dir, tc.name+".svg")}, paths)
			svg := checkFigure(t, paths, tc.texts...)
			require.Equal(t, tc.dashes, strings.Count(svg, dashed), "dashed lines")
			require.Equal(t, tc.images, strings.Count(svg, "<image"), "images")
		})
	}
}

// The 90 % line sits at 0.9 of the ideal's bandwidth and the rings on the
// first points the sweep says reach it.
func TestPlotThresholdMarks(t *testing.T) {
	tp := thresholdPanel{ideal: 278.6, firsts: []int64{450, 128}, lines: []series{
		{xy: plotter.XYs{{X: 128, Y: 278.6}, {X: 450, Y: 278.6}}},
		{xy: plotter.XYs{{X: 128, Y: 76.7}, {X: 450, Y: 266.3}}},
		{xy: plotter.XYs{{X: 128, Y: 277.2}, {X: 450, Y: 279.1}}},
	}}
	line := tp.targetLine(900)
	// 0.9 × 278.6 = 250.74, from 0 to 900 GB/s.
	require.Len(t, line, 2)
	require.InDelta(t, 250.74, line[0].Y, 1e-9)
	require.InDelta(t, 250.74, line[1].Y, 1e-9)
	require.Equal(t, []float64{0, 900}, []float64{line[0].X, line[1].X})
	// The baseline's first at 450 GB/s (266.3), ACE's at 128 (277.2).
	require.Equal(t, plotter.XYs{{X: 450, Y: 266.3}, {X: 128, Y: 277.2}}, tp.firstPoints())
	// Not reached (0): no ring.
	tp.firsts = []int64{0, 128}
	require.Equal(t, plotter.XYs{{X: 128, Y: 277.2}}, tp.firstPoints())
}

// A result with nothing to draw, or that cannot be drawn, is refused with
// the figure named, not drawn empty or a panic.
func TestPlotEmptyResults(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		draw func() ([]string, error)
		want string
	}{
		{func() ([]string, error) { return Fig5(&reproduce.Fig5Result{}, dir) }, "fig5 plot: no rows"},
		{func() ([]string, error) { return Fig6(&reproduce.Fig6Result{}, dir) }, "fig6 plot: no rows"},
		{func() ([]string, error) { return Fig9a(&reproduce.Fig9aResult{}, dir) }, "fig9a plot: no cells"},
		{func() ([]string, error) { return Fig9b(&reproduce.Fig9bResult{}, dir) }, "fig9b plot: no rows"},
		{func() ([]string, error) { return Fig11(&reproduce.Fig11Result{}, dir) }, "fig11 plot: no rows"},
		{func() ([]string, error) {
			return Fig4(&reproduce.Fig4Result{Rows: []reproduce.Fig4Row{{Topo: "4x2x2", System: "ace", CommSlowdown: 1}}}, dir)
		}, "fig4 plot: no runs beside a kernel"},
		{func() ([]string, error) { return CCubeFig12a(nil, dir) }, "ccube-fig12a plot: no rows"},
		{func() ([]string, error) { return CCubeFig13(nil, dir) }, "ccube-fig13 plot: no rows"},
		{func() ([]string, error) { return BlueConnectFig3(&reproduce.BlueConnectResult{}, dir) }, "blueconnect-fig3 plot: no rows"},
		{func() ([]string, error) {
			return BlueConnectFig3(&reproduce.BlueConnectResult{Rows: []reproduce.BlueConnectRow{{Fabric: "switch:4", NPUs: 4, Ms: []float64{1}}}}, dir)
		}, "blueconnect-fig3 plot: fabric switch:4 has 4 GPUs, 1 times and 0 model times: give a positive count and one time each for [ring two-level blueconnect]"},
		{func() ([]string, error) {
			return CCubeFig12a([]reproduce.CCubeRow{{Size: 0, Endpoint: reproduce.Ideal}}, dir)
		}, "ccube-fig12a plot: a row of 0 B: sizes are drawn on a log scale and must be positive"},
	} {
		_, err := tc.draw()
		require.EqualError(t, err, tc.want)
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "nothing written")
}

// One tiny real sweep drawn: Fig. 5 of a 1 MiB all-reduce on 4x2x2 at two
// memory points.
func TestPlotFig5FromASweep(t *testing.T) {
	o := reproduce.DefaultFig5()
	o.Topos, o.Size, o.MemGBps = []string{"4x2x2"}, 1<<20, []int64{64, 450}
	res, err := reproduce.Fig5(o)
	require.NoError(t, err)
	paths, err := Fig5(res, t.TempDir())
	require.NoError(t, err)
	checkFigure(t, paths, "Fig. 5: network bandwidth of a 1MiB all-reduce", "4x2x2", ">90 % of ideal<")
}
