package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// series is one line of a panel: its name and points.
type series struct {
	name string
	xy   plotter.XYs
}

// panel is a plot of lines with a legend, for one topology.
func panel(title, x, y string, lines []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Y.Min = 0
	p.Legend.Top, p.Legend.Left = false, false
	p.X.Min = 0
	top := 0.0
	for i, s := range lines {
		for _, q := range s.xy {
			top = max(top, q.Y)
		}
		l, pts, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", title, err)
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
	}
	p.Y.Max = 1.1 * top // clear of the title
	p.Y.Tick.Marker = niceTicks{}
	return p, nil
}

// topoPanels draws one panel per topology, side by side, as dir/name.
func topoPanels(dir, name string, topos []string, draw1 func(topo string) (*plot.Plot, error)) ([]string, error) {
	row := make([]*plot.Plot, 0, len(topos))
	for _, t := range topos {
		p, err := draw1(t)
		if err != nil {
			return nil, err
		}
		row = append(row, p)
	}
	return saveGrid([][]*plot.Plot{row}, dir, name, vg.Length(len(topos))*5*vg.Inch, 4*vg.Inch)
}

// topologies are the topologies of rows, in their first order.
func topologies[R any](rows []R, topo func(R) string) []string {
	var out []string
	for _, r := range rows {
		if t := topo(r); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// Fig5 draws the network bandwidth each endpoint reaches against the
// memory bandwidth given to communication, one panel per topology (the
// paper's Fig. 5). It writes dir/fig5.{png,svg}.
func Fig5(res *reproduce.Fig5Result, dir string) ([]string, error) {
	topos := topologies(res.Rows, func(r reproduce.Fig5Row) string { return r.Topo })
	return topoPanels(dir, "fig5", topos, func(topo string) (*plot.Plot, error) {
		var base, ace, ideal plotter.XYs
		for _, r := range res.Rows {
			if r.Topo == topo {
				x := float64(r.MemGBps)
				base = append(base, plotter.XY{X: x, Y: r.BaselineBW})
				ace = append(ace, plotter.XY{X: x, Y: r.ACEBW})
				ideal = append(ideal, plotter.XY{X: x, Y: r.IdealBW})
			}
		}
		return panel(fmt.Sprintf("Fig. 5: %s all-reduce on %s", units.FormatSize(res.Size), topo),
			"memory bandwidth for communication (GB/s, each way)", "network bandwidth (GB/s per NPU)",
			[]series{{"baseline (80 SMs)", base}, {"ACE", ace}, {"ideal", ideal}})
	})
}

// Fig6 draws the network bandwidth the baseline reaches against the SMs
// it gives communication, beside the ideal endpoint's, one panel per
// topology (the paper's Fig. 6). It writes dir/fig6.{png,svg}.
func Fig6(res *reproduce.Fig6Result, dir string) ([]string, error) {
	topos := topologies(res.Rows, func(r reproduce.Fig6Row) string { return r.Topo })
	return topoPanels(dir, "fig6", topos, func(topo string) (*plot.Plot, error) {
		var base, ideal plotter.XYs
		for _, r := range res.Rows {
			if r.Topo == topo {
				base = append(base, plotter.XY{X: float64(r.SMs), Y: r.BaselineBW})
				ideal = append(ideal, plotter.XY{X: float64(r.SMs), Y: r.IdealBW})
			}
		}
		return panel(fmt.Sprintf("Fig. 6: %s all-reduce on %s", units.FormatSize(res.Size), topo),
			"SMs given to communication", "network bandwidth (GB/s per NPU)",
			[]series{{fmt.Sprintf("baseline (%d GB/s of memory)", res.MemGBps), base}, {"ideal", ideal}})
	})
}

// grid is the Fig. 9(a) cells as a heat map's grid: columns are SRAM
// sizes, rows FSM counts, in increasing order.
type grid struct {
	srams []int64
	fsms  []int
	perf  map[[2]int64]float64
}

func (g grid) Dims() (c, r int)   { return len(g.srams), len(g.fsms) }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }
func (g grid) Z(c, r int) float64 { return g.perf[[2]int64{g.srams[c], int64(g.fsms[r])}] }

// Fig9a draws the design-point sweep as a heat map: performance against
// the base point (averaged over workloads and sizes) for every SRAM size
// and FSM count, each cell labelled with its value (the paper's
// Fig. 9(a)). It writes dir/fig9a.{png,svg}.
func Fig9a(res *reproduce.Fig9aResult, dir string) ([]string, error) {
	g := grid{perf: map[[2]int64]float64{}}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range res.Cells {
		if !slices.Contains(g.srams, c.SRAM) {
			g.srams = append(g.srams, c.SRAM)
		}
		if !slices.Contains(g.fsms, c.FSMs) {
			g.fsms = append(g.fsms, c.FSMs)
		}
		g.perf[[2]int64{c.SRAM, int64(c.FSMs)}] = c.Perf
		lo, hi = min(lo, c.Perf), max(hi, c.Perf)
	}
	if len(g.srams) == 0 {
		return nil, fmt.Errorf("fig9a plot: no cells")
	}
	slices.Sort(g.srams)
	slices.Sort(g.fsms)
	pal := moreland.SmoothBlueRed()
	if hi == lo {
		hi = lo + 1e-9
	}
	pal.SetMin(lo)
	pal.SetMax(hi)
	hm := plotter.NewHeatMap(g, pal.Palette(64))
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Fig. 9(a): ACE's performance against %s and %d FSMs (%s)", units.FormatSize(res.BaseSRAM), res.BaseFSMs, averagedOver(res.Runs))
	p.X.Label.Text, p.Y.Label.Text = "SRAM", "FSMs"
	p.Add(hm)
	var xt, yt []plot.Tick
	for i, s := range g.srams {
		xt = append(xt, plot.Tick{Value: float64(i), Label: units.FormatSize(s)})
	}
	for i, f := range g.fsms {
		yt = append(yt, plot.Tick{Value: float64(i), Label: fmt.Sprint(f)})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
	var labels plotter.XYLabels
	for c, s := range g.srams {
		for r, f := range g.fsms {
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: float64(r)})
			labels.Labels = append(labels.Labels, fmt.Sprintf("%.3f", g.perf[[2]int64{s, int64(f)}]))
		}
	}
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, fmt.Errorf("fig9a plot: %w", err)
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
	}
	p.Add(l)
	// The colour bar beside the map: its scale, performance against the
	// base point.
	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: pal, Vertical: true})
	bar.HideX()
	bar.Y.Label.Text = "perf vs base"
	bar.Y.Tick.Marker = niceTicks{}
	const barShare = 0.14 // of the figure's width
	return saveDrawn(dir, "fig9a", width, height, func(dc draw.Canvas) {
		split := dc.Min.X + (dc.Max.X-dc.Min.X)*(1-barShare)
		left, right := dc, dc
		left.Max.X, right.Min.X = split, split
		p.Draw(left)
		bar.Draw(draw.Crop(right, vg.Points(12), -vg.Points(4), vg.Points(28), -vg.Points(22)))
	})
}

// averagedOver says what Fig. 9(a)'s cells average over: its runs'
// workloads and topologies, named when there is one of each.
func averagedOver(runs []reproduce.Fig9aRun) string {
	var ws, ts []string
	for _, r := range runs {
		if !slices.Contains(ws, r.Workload) {
			ws = append(ws, r.Workload)
		}
		if !slices.Contains(ts, r.Topo) {
			ts = append(ts, r.Topo)
		}
	}
	what := func(names []string, many string) string {
		if len(names) == 1 {
			return names[0]
		}
		return fmt.Sprintf("mean over %d %s", len(names), many)
	}
	return what(ws, "workloads") + " on " + what(ts, "topologies")
}

// niceTicks marks an axis every 1, 2 or 5 × 10ⁿ, about five times over
// its range, with labels as short as the step allows.
type niceTicks struct{}

// Ticks returns the ticks for [lo, hi].
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi <= lo {
		return nil
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{2, 5, 10} {
		if step >= raw {
			break
		}
		step = m * mag
	}
	decimals := max(0, -int(math.Floor(math.Log10(step))))
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return ticks
}

// shortNames are the systems' names in a legend.
var shortNames = map[string]string{"baseline-nooverlap": "NoOverlap", "baseline-commopt": "CommOpt", "baseline-compopt": "CompOpt", "ace": "ACE", "ideal": "Ideal"}

// exposedGrey is the colour of exposed communication stacked on compute.
var exposedGrey = color.Gray{Y: 170}

// Fig11 draws the scaling study as the paper's Fig. 11, a column per
// workload: (a) each system's run at each size as compute with its exposed
// communication stacked on it (ms, every iteration); (b) ACE's speed-up
// over each baseline against the NPUs. It writes dir/fig11.{png,svg}.
func Fig11(res *reproduce.Fig11Result, dir string) ([]string, error) {
	var workloads []string
	for _, r := range res.Rows {
		if !slices.Contains(workloads, r.Workload) {
			workloads = append(workloads, r.Workload)
		}
	}
	if len(workloads) == 0 {
		return nil, fmt.Errorf("fig11 plot: no rows")
	}
	top, bottom := make([]*plot.Plot, len(workloads)), make([]*plot.Plot, len(workloads))
	for c, w := range workloads {
		var rows []reproduce.Fig11Row
		var sizes []string
		for _, r := range res.Rows {
			if r.Workload == w {
				rows = append(rows, r)
				sizes = append(sizes, strconv.Itoa(r.NPUs))
			}
		}
		p := plot.New()
		p.Title.Text = "Fig. 11(a): " + w
		p.Y.Label.Text = "time (ms, every iteration)"
		p.X.Label.Text = "NPUs"
		width := vg.Points(9)
		for i, name := range reproduce.Fig11Systems {
			compute, exposed := make(plotter.Values, len(rows)), make(plotter.Values, len(rows))
			for j, r := range rows {
				s := r.System(name)
				compute[j], exposed[j] = millis(float64(s.ComputeCycles)), millis(float64(s.ExposedCycles))
			}
			cb, err := plotter.NewBarChart(compute, width)
			if err != nil {
				return nil, fmt.Errorf("fig11 plot: %w", err)
			}
			eb, err := plotter.NewBarChart(exposed, width)
			if err != nil {
				return nil, fmt.Errorf("fig11 plot: %w", err)
			}
			cb.Color, eb.Color = plotutil.Color(i), exposedGrey
			cb.LineStyle.Width, eb.LineStyle.Width = 0, 0
			cb.Offset = vg.Length(i-len(reproduce.Fig11Systems)/2) * width
			eb.Offset = cb.Offset
			eb.StackOn(cb)
			p.Add(cb, eb)
			p.Legend.Add(shortNames[name], cb)
			if i == len(reproduce.Fig11Systems)-1 {
				p.Legend.Add("exposed comm.", eb)
			}
		}
		p.NominalX(sizes...)
		p.Legend.Top, p.Legend.Left = true, true
		p.Y.Min = 0
		p.Y.Max *= 1.6 // room for the legend above the bars
		top[c] = p

		var lines []series
		for _, b := range reproduce.Fig11Baselines {
			var xy plotter.XYs
			for _, r := range rows {
				xy = append(xy, plotter.XY{X: float64(r.NPUs), Y: r.System(b).ACESpeedup})
			}
			lines = append(lines, series{"ACE over " + shortNames[b], xy})
		}
		lp, err := panel("Fig. 11(b): "+w, "NPUs", "ACE's speed-up (×)", lines)
		if err != nil {
			return nil, err
		}
		bottom[c] = lp
	}
	return saveGrid([][]*plot.Plot{top, bottom}, dir, "fig11", vg.Length(len(workloads))*5*vg.Inch, 8*vg.Inch)
}

// Fig9b draws ACE's utilisation in the forward pass and in
// back-propagation per workload beside the paper's back-propagation
// figures (the paper's Fig. 9(b)). It writes dir/fig9b.{png,svg}.
func Fig9b(res *reproduce.Fig9bResult, dir string) ([]string, error) {
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("fig9b plot: no rows")
	}
	var names []string
	fwd, back, paper := make(plotter.Values, len(res.Rows)), make(plotter.Values, len(res.Rows)), make(plotter.Values, len(res.Rows))
	for i, r := range res.Rows {
		names = append(names, r.Workload+" on "+r.Topo)
		fwd[i], back[i], paper[i] = 100*r.Forward, 100*r.Backprop, 100*r.PaperBackprop
	}
	p := plot.New()
	p.Title.Text = "Fig. 9(b): ACE's utilisation (holding at least one chunk)"
	p.Y.Label.Text = "% of the pass's time"
	width := vg.Points(18)
	for i, s := range []struct {
		name string
		v    plotter.Values
	}{{"forward", fwd}, {"back-prop", back}, {"back-prop (paper)", paper}} {
		b, err := plotter.NewBarChart(s.v, width)
		if err != nil {
			return nil, fmt.Errorf("fig9b plot: %w", err)
		}
		b.Color = plotutil.Color(i)
		b.Offset = vg.Length(i-1) * width
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.NominalX(names...)
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, 130 // room for the legend above 100 %
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})
	return save(p, dir, "fig9b")
}
