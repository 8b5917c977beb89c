package plots

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/testrun"
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
	rep, err := compare.Run(compare.Options{Shape: shape, Workload: w, Systems: ss, Iterations: 1, Series: true})
	require.NoError(t, err)
	return rep
}

// checkFigure checks that a figure's PNG decodes at its size (8 × 4.5
// inches at 96 dpi) and that its SVG has the title, the axis labels and a
// legend entry per series.
func checkFigure(t *testing.T, paths []string, texts ...string) {
	require.Len(t, paths, 2)
	f, err := os.Open(paths[0])
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err, paths[0])
	require.Equal(t, 768, img.Bounds().Dx())
	require.Equal(t, 432, img.Bounds().Dy())
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
	checkFigure(t, paths, "Network utilisation: small on 4x2x1 (8 NPUs)", "time (ms)", "link utilisation",
		"baseline-commopt", "ace", "ideal")
	rep.Systems[0].NetworkUtilization = nil
	_, err = Utilization(rep, t.TempDir())
	require.ErrorContains(t, err, "system baseline-commopt has no series")
}

func TestBreakdownFigure(t *testing.T) {
	paths, err := Breakdown(run(t), t.TempDir())
	require.NoError(t, err)
	checkFigure(t, paths, "Iteration time", "time per iteration (ms)", "compute", "exposed communication",
		"baseline-commopt", "ace", "ideal")
}
