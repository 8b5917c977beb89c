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

// series is one line of a panel: its name and points; dashed draws it
// dashed, bare without its points.
type series struct {
	name         string
	xy           plotter.XYs
	dashed, bare bool
}

// colour is the i-th of the figures' colours, dark enough to print.
func colour(i int) color.Color { return plotutil.DarkColors[i%len(plotutil.DarkColors)] }

// addLines adds lines to p, each in its colour (colours[i], or the i-th)
// with its points, and returns their legend keys.
func addLines(p *plot.Plot, lines []series, colours ...color.Color) ([]key, error) {
	var keys []key
	for i, s := range lines {
		c := colour(i)
		if i < len(colours) {
			c = colours[i]
		}
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", s.name, err)
		}
		l.Color, l.Width = c, vg.Points(1.2)
		if s.dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		if s.bare {
			p.Add(l)
			keys = append(keys, lineKey(s.name, l, nil))
			continue
		}
		pts, err := plotter.NewScatter(s.xy)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", s.name, err)
		}
		pts.Color, pts.Shape, pts.Radius = c, plotutil.Shape(i), vg.Points(2.5)
		p.Add(l, pts)
		keys = append(keys, lineKey(s.name, l, pts))
	}
	return keys, nil
}

// distinct are the distinct values of f over rows, in their first order.
func distinct[R any](rows []R, f func(R) string) []string {
	var out []string
	for _, r := range rows {
		if v := f(r); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// thresholdPanel is one topology's panel of Fig. 5 or 6: the ideal's
// line, the endpoints' over it, a dashed line at reproduce.Target of the
// ideal, and a ring on each endpoint's first point at it (firsts: the x
// of each endpoint's, 0 for none), said in the title's second line
// (reached).
type thresholdPanel struct {
	topo, x, reached string
	lines            []series // the ideal's, then the endpoints'
	ideal            float64
	firsts           []int64
}

// targetLine is the ideal's reproduce.Target share, from 0 to xmax.
func (tp thresholdPanel) targetLine(xmax float64) plotter.XYs {
	y := reproduce.Target * tp.ideal
	return plotter.XYs{{X: 0, Y: y}, {X: xmax, Y: y}}
}

// firstPoints are the endpoints' first points at the target, as firsts
// gives their x.
func (tp thresholdPanel) firstPoints() plotter.XYs {
	var pts plotter.XYs
	for i, f := range tp.firsts {
		for _, q := range tp.lines[i+1].xy {
			if f > 0 && q.X == float64(f) {
				pts = append(pts, q)
			}
		}
	}
	return pts
}

// thresholdFigure draws Fig. 5 or 6: a panel per topology, two to a row,
// with the legend above them.
func thresholdFigure(dir, name, title string, panels []thresholdPanel) ([]string, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("%s plot: no rows", name)
	}
	var ps []*plot.Plot
	var keys []key
	for _, tp := range panels {
		p := newPlot(tp.topo+"\n"+tp.reached, tp.x, "network bandwidth (GB/s per NPU)")
		colours := []color.Color{color.Black} // the ideal
		for i := range tp.lines[1:] {
			colours = append(colours, colour(i))
		}
		ks, err := addLines(p, tp.lines, colours...)
		if err != nil {
			return nil, err
		}
		xmax := 0.0
		for _, s := range tp.lines {
			for _, q := range s.xy {
				xmax = max(xmax, q.X)
			}
		}
		th, err := plotter.NewLine(tp.targetLine(xmax))
		if err != nil {
			return nil, fmt.Errorf("%s plot: %w", name, err)
		}
		th.Color, th.Width, th.Dashes = color.Gray{Y: 90}, vg.Points(1), []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(th)
		rings := tp.firstPoints()
		ring := ringOf(rings)
		if len(rings) > 0 {
			p.Add(ring)
		}
		p.X.Min, p.Y.Min = 0, 0
		p.Y.Max = 1.08 * maxY(tp.lines)
		p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
		ps = append(ps, p)
		if keys == nil {
			keys = append(ks, key{text: fmt.Sprintf("%.0f %% of ideal", 100*reproduce.Target), thumbs: []plot.Thumbnailer{th}},
				key{text: fmt.Sprintf("first point at %.0f %% of ideal", 100*reproduce.Target), thumbs: []plot.Thumbnailer{ring}})
		}
	}
	return figure{title: title, keys: keys, panels: inRows(ps, 2), panelHeight: 2.9 * vg.Inch}.save(dir, name)
}

// ringOf is a ring around each of pts (none: a legend's key only).
func ringOf(pts plotter.XYs) *plotter.Scatter {
	return &plotter.Scatter{XYs: pts, GlyphStyle: draw.GlyphStyle{Color: color.Black, Radius: vg.Points(6), Shape: draw.RingGlyph{}}}
}

// maxY is the largest y of lines.
func maxY(lines []series) float64 {
	top := 0.0
	for _, s := range lines {
		for _, q := range s.xy {
			top = max(top, q.Y)
		}
	}
	return top
}

// thresholdOf is topo's threshold in ths (zero when it has none).
func thresholdOf(ths []reproduce.Threshold, topo string) reproduce.Threshold {
	for _, t := range ths {
		if t.Topo == topo {
			return t
		}
	}
	return reproduce.Threshold{Topo: topo}
}

// reachedAt says where an endpoint first reached the target: "450 GB/s",
// "6 SMs", or "not reached".
func reachedAt(v int64, unit string) string {
	if v == 0 {
		return "not reached"
	}
	return fmt.Sprintf("%d %s", v, unit)
}

// Fig5 draws the network bandwidth each endpoint reaches against the
// memory bandwidth given to communication, one panel per topology, with
// the ideal's 90 % marked and the first point reaching it ringed (the
// paper's Fig. 5). It writes dir/fig5.{png,svg}.
func Fig5(res *reproduce.Fig5Result, dir string) ([]string, error) {
	var panels []thresholdPanel
	for _, topo := range distinct(res.Rows, func(r reproduce.Fig5Row) string { return r.Topo }) {
		var base, ace, ideal plotter.XYs
		bw := 0.0
		for _, r := range res.Rows {
			if r.Topo == topo {
				x := float64(r.MemGBps)
				base = append(base, plotter.XY{X: x, Y: r.BaselineBW})
				ace = append(ace, plotter.XY{X: x, Y: r.ACEBW})
				ideal = append(ideal, plotter.XY{X: x, Y: r.IdealBW})
				bw = r.IdealBW
			}
		}
		th := thresholdOf(res.Thresholds, topo)
		reached := fmt.Sprintf("%.0f %% of ideal first at: baseline %s, ACE %s", 100*reproduce.Target, reachedAt(th.Baseline, "GB/s"), reachedAt(th.ACE, "GB/s"))
		panels = append(panels, thresholdPanel{topo: topo, x: "memory bandwidth for comm. (GB/s, each way)", reached: reached,
			lines: []series{{name: "ideal", xy: ideal, bare: true}, {name: "baseline (80 SMs)", xy: base}, {name: "ACE", xy: ace}},
			ideal: bw, firsts: []int64{th.Baseline, th.ACE}})
	}
	return thresholdFigure(dir, "fig5", fmt.Sprintf("Fig. 5: network bandwidth of a %s all-reduce against the memory bandwidth for communication", units.FormatSize(res.Size)), panels)
}

// Fig6 draws the network bandwidth the baseline reaches against the SMs
// it gives communication, beside the ideal endpoint's, one panel per
// topology, with the ideal's 90 % marked and the first point reaching it
// ringed (the paper's Fig. 6). It writes dir/fig6.{png,svg}.
func Fig6(res *reproduce.Fig6Result, dir string) ([]string, error) {
	var panels []thresholdPanel
	for _, topo := range distinct(res.Rows, func(r reproduce.Fig6Row) string { return r.Topo }) {
		var base, ideal plotter.XYs
		bw := 0.0
		for _, r := range res.Rows {
			if r.Topo == topo {
				base = append(base, plotter.XY{X: float64(r.SMs), Y: r.BaselineBW})
				ideal = append(ideal, plotter.XY{X: float64(r.SMs), Y: r.IdealBW})
				bw = r.IdealBW
			}
		}
		th := thresholdOf(res.Thresholds, topo)
		panels = append(panels, thresholdPanel{topo: topo, x: "SMs for communication", reached: fmt.Sprintf("%.0f %% of ideal first at: %s", 100*reproduce.Target, reachedAt(th.Baseline, "SMs")),
			lines: []series{{name: "ideal", xy: ideal, bare: true}, {name: fmt.Sprintf("baseline (%d GB/s of memory)", res.MemGBps), xy: base}},
			ideal: bw, firsts: []int64{th.Baseline}})
	}
	return thresholdFigure(dir, "fig6", fmt.Sprintf("Fig. 6: network bandwidth of a %s all-reduce on the baseline against the SMs for communication", units.FormatSize(res.Size)), panels)
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
	// The colours diverge from the base point's 1: blue below it, red
	// above, as far each way.
	pal := moreland.SmoothBlueRed()
	d := max(1-lo, hi-1, 1e-3)
	pal.SetMin(1 - d)
	pal.SetMax(1 + d)
	hm := plotter.NewHeatMap(g, pal.Palette(65))
	hm.Min, hm.Max = 1-d, 1+d
	p := newPlot("", "ACE's SRAM", "FSMs")
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
	var dark []bool
	for c, s := range g.srams {
		for r, f := range g.fsms {
			v := g.perf[[2]int64{s, int64(f)}]
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: float64(r)})
			labels.Labels = append(labels.Labels, fmt.Sprintf("%.3f", v))
			cl, err := pal.At(v)
			dark = append(dark, err == nil && luminance(cl) < 0.5)
		}
	}
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, fmt.Errorf("fig9a plot: %w", err)
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
		l.TextStyle[i].Font.Size = tickSize
		if dark[i] {
			l.TextStyle[i].Color = color.White // readable on the map's dark ends
		}
	}
	p.Add(l)
	// The colour bar beside the map: its scale, performance against the
	// base point.
	bar := newPlot("", "", "performance against the base point (×)")
	bar.Add(&plotter.ColorBar{ColorMap: pal, Vertical: true})
	bar.HideX()
	bar.Y.Tick.Marker = niceTicks{}
	const barShare = 0.2 // of the figure's width
	title := fmt.Sprintf("Fig. 9(a): ACE's performance against %s and %d FSMs\n(%s)", units.FormatSize(res.BaseSRAM), res.BaseFSMs, averagedOver(res.Runs))
	return saveDrawn(dir, "fig9a", pageWidth, 3.6*vg.Inch, stack(titleBlock(title), block{paint: func(dc draw.Canvas) {
		split := dc.Min.X + (dc.Max.X-dc.Min.X)*(1-barShare)
		left, right := dc, dc
		left.Max.X, right.Min.X = split, split
		p.Draw(draw.Crop(left, vg.Points(2), 0, vg.Points(2), 0))
		bar.Draw(draw.Crop(right, vg.Points(30), -vg.Points(30), vg.Points(22), -vg.Points(4)))
	}}))
}

// luminance is c's relative luminance, 0 (black) to 1 (white), by
// Rec. 709's weights.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}

// averagedOver says what Fig. 9(a)'s cells average over: its runs'
// workloads and topologies, named when there is one of each.
func averagedOver(runs []reproduce.Fig9aRun) string {
	ws := distinct(runs, func(r reproduce.Fig9aRun) string { return r.Workload })
	ts := distinct(runs, func(r reproduce.Fig9aRun) string { return r.Topo })
	what := func(names []string, many string) string {
		if len(names) == 1 {
			return names[0]
		}
		return fmt.Sprintf("%d %s", len(names), many)
	}
	switch w, t := what(ws, "workloads"), what(ts, "topologies"); {
	case len(ws) == 1 && len(ts) == 1:
		return w + " on " + t
	case len(ws) == 1:
		return w + ", mean over " + t
	default:
		return "mean over " + w + " on " + t
	}
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

// barWidth is the width of each of n bars side by side in each of groups
// groups across a panel panelW wide, at most 30 points.
func barWidth(panelW vg.Length, groups, n int) vg.Length {
	data := panelW - 0.7*vg.Inch // the y axis's labels and ticks
	return min(vg.Points(30), data*0.8/vg.Length(max(1, groups*n)))
}

// bars adds a bar chart of v at offset i of n bars w wide, in c, to p,
// stacked on on when it is not nil.
func bars(p *plot.Plot, v plotter.Values, w vg.Length, i, n int, c color.Color, on *plotter.BarChart) (*plotter.BarChart, error) {
	b, err := plotter.NewBarChart(v, w)
	if err != nil {
		return nil, err
	}
	b.Color, b.LineStyle.Width = c, 0
	b.Offset = (vg.Length(i) - vg.Length(n-1)/2) * w
	if on != nil {
		b.StackOn(on)
	}
	p.Add(b)
	return b, nil
}

// hline adds a horizontal line at y across [x0, x1] to p, dotted, grey.
func hline(p *plot.Plot, y, x0, x1 float64) (*plotter.Line, error) {
	l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	if err != nil {
		return nil, err
	}
	l.Color, l.Width, l.Dashes = color.Gray{Y: 110}, vg.Points(0.8), []vg.Length{vg.Points(1), vg.Points(2)}
	p.Add(l)
	return l, nil
}

// Fig11 draws the scaling study as the paper's Fig. 11, a row per
// workload: (a) each system's run at each size as compute with its exposed
// communication stacked on it (ms, every iteration); (b) ACE's speed-up
// over each baseline against the NPUs. It writes dir/fig11.{png,svg}.
func Fig11(res *reproduce.Fig11Result, dir string) ([]string, error) {
	workloads := distinct(res.Rows, func(r reproduce.Fig11Row) string { return r.Workload })
	if len(workloads) == 0 {
		return nil, fmt.Errorf("fig11 plot: no rows")
	}
	var grid [][]*plot.Plot
	var keys, lineKeys []key
	for _, w := range workloads {
		var rows []reproduce.Fig11Row
		var sizes []string
		for _, r := range res.Rows {
			if r.Workload == w {
				rows = append(rows, r)
				sizes = append(sizes, strconv.Itoa(r.NPUs))
			}
		}
		p := newPlot("(a) "+w+": compute and exposed communication", "NPUs", "time (ms, all iterations)")
		n := len(reproduce.Fig11Systems)
		width := barWidth(pageWidth/2, len(rows), n)
		for i, name := range reproduce.Fig11Systems {
			compute, exposed := make(plotter.Values, len(rows)), make(plotter.Values, len(rows))
			for j, r := range rows {
				s := r.System(name)
				compute[j], exposed[j] = millis(float64(s.ComputeCycles)), millis(float64(s.ExposedCycles))
			}
			cb, err := bars(p, compute, width, i, n, colour(i), nil)
			if err != nil {
				return nil, fmt.Errorf("fig11 plot: %w", err)
			}
			eb, err := bars(p, exposed, width, i, n, exposedGrey, cb)
			if err != nil {
				return nil, fmt.Errorf("fig11 plot: %w", err)
			}
			if len(grid) == 0 {
				keys = append(keys, key{text: shortNames[name], thumbs: []plot.Thumbnailer{cb}})
				if i == n-1 {
					keys = append(keys, key{text: "exposed communication", thumbs: []plot.Thumbnailer{eb}})
				}
			}
		}
		p.NominalX(sizes...)
		p.Y.Min = 0
		p.Y.Tick.Marker = niceTicks{}

		var lines []series
		var colours []color.Color
		for _, b := range reproduce.Fig11Baselines {
			var xy plotter.XYs
			for j, r := range rows {
				xy = append(xy, plotter.XY{X: float64(j), Y: r.System(b).ACESpeedup})
			}
			lines = append(lines, series{name: "ACE over " + shortNames[b], xy: xy})
			colours = append(colours, colour(slices.Index(reproduce.Fig11Systems, b)))
		}
		lp := newPlot("(b) "+w+": ACE's speed-up", "NPUs", "ACE's speed-up (×)")
		one, err := hline(lp, 1, -0.5, float64(len(rows))-0.5)
		if err != nil {
			return nil, fmt.Errorf("fig11 plot: %w", err)
		}
		ks, err := addLines(lp, lines, colours...)
		if err != nil {
			return nil, err
		}
		if len(grid) == 0 {
			lineKeys = append(ks, key{text: "no speed-up", thumbs: []plot.Thumbnailer{one}})
		}
		lp.NominalX(sizes...) // the sizes at (a)'s places
		lp.X.Min, lp.X.Max, lp.Y.Min = -0.5, float64(len(rows))-0.5, 0
		lp.Y.Max = 1.08 * maxY(lines)
		lp.Y.Tick.Marker = niceTicks{}
		grid = append(grid, []*plot.Plot{p, lp})
	}
	return figure{title: "Fig. 11: training time as the torus grows, and ACE's speed-up over each baseline", keys: append(keys, lineKeys...),
		panels: grid, panelHeight: 2.6 * vg.Inch}.save(dir, "fig11")
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
	p := newPlot("", "", "% of the pass's time")
	var keys []key
	width := barWidth(pageWidth, len(names), 3)
	for i, s := range []struct {
		name string
		v    plotter.Values
	}{{"forward", fwd}, {"back-propagation", back}, {"back-propagation (paper)", paper}} {
		b, err := bars(p, s.v, width, i, 3, colour(i), nil)
		if err != nil {
			return nil, fmt.Errorf("fig9b plot: %w", err)
		}
		keys = append(keys, key{text: s.name, thumbs: []plot.Thumbnailer{b}})
	}
	p.NominalX(names...)
	p.Y.Min, p.Y.Max = 0, 100
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})
	return figure{title: "Fig. 9(b): ACE's utilisation (holding at least one chunk) by pass", keys: keys,
		panels: [][]*plot.Plot{{p}}, panelHeight: 3 * vg.Inch}.save(dir, "fig9b")
}
