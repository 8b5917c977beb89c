package plots

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// shortName is a system's name in a legend (shortNames), else its own.
func shortName(s string) string {
	if n, ok := shortNames[s]; ok {
		return n
	}
	return s
}

// mark is a glyph style for the papers' own figures beside acemu's.
func mark(c color.Color, shape draw.GlyphDrawer) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: shape}
}

// Fig4 draws the Section III microbenchmark as the paper's Fig. 4(a): per
// topology, the all-reduce's slowdown beside each kernel on each system,
// with the paper's two slowdowns, and the kernel's own slowdown beside
// it. It writes dir/fig4.{png,svg}.
func Fig4(res *reproduce.Fig4Result, dir string) ([]string, error) {
	var beside []reproduce.Fig4Row // the rows with a kernel beside the all-reduce
	for _, r := range res.Rows {
		if r.Kernel != "" {
			beside = append(beside, r)
		}
	}
	if len(beside) == 0 {
		return nil, fmt.Errorf("fig4 plot: no runs beside a kernel")
	}
	kernels := distinct(beside, func(r reproduce.Fig4Row) string { return r.Kernel })
	systems := distinct(beside, func(r reproduce.Fig4Row) string { return r.System })
	var names []string
	for _, s := range systems {
		names = append(names, shortName(s))
	}
	var grid [][]*plot.Plot
	var keys []key
	for _, topo := range distinct(beside, func(r reproduce.Fig4Row) string { return r.Topo }) {
		comm := newPlot(topo+": the all-reduce", "", "slowdown (×, beside / alone)")
		kern := newPlot(topo+": the kernel", "", "slowdown (×, beside / alone)")
		w := barWidth(pageWidth/2, len(systems), len(kernels))
		var paperKeys []key
		for i, k := range kernels {
			cv, kv := make(plotter.Values, len(systems)), make(plotter.Values, len(systems))
			for _, r := range beside {
				if r.Topo == topo && r.Kernel == k {
					j := slices.Index(systems, r.System)
					cv[j], kv[j] = r.CommSlowdown, r.KernelSlowdown
				}
			}
			b, err := bars(comm, cv, w, i, len(kernels), colour(i), nil)
			if err != nil {
				return nil, fmt.Errorf("fig4 plot: %w", err)
			}
			if _, err := bars(kern, kv, w, i, len(kernels), colour(i), nil); err != nil {
				return nil, fmt.Errorf("fig4 plot: %w", err)
			}
			if len(grid) == 0 {
				keys = append(keys, key{text: "beside " + k, thumbs: []plot.Thumbnailer{b}})
			}
			if v, ok := reproduce.Fig4Paper[k]; ok {
				l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: v}, {X: float64(len(systems)) - 0.5, Y: v}})
				if err != nil {
					return nil, fmt.Errorf("fig4 plot: %w", err)
				}
				l.Color, l.Width, l.Dashes = colour(i), vg.Points(1.2), []vg.Length{vg.Points(5), vg.Points(3)}
				comm.Add(l)
				paperKeys = append(paperKeys, key{text: fmt.Sprintf("paper (100 MB), beside %s (%.2f×)", k, v), thumbs: []plot.Thumbnailer{l}})
			}
		}
		if len(grid) == 0 {
			keys = append(keys, paperKeys...)
		}
		for _, p := range []*plot.Plot{comm, kern} {
			p.NominalX(names...)
			p.X.Min, p.X.Max = -0.5, float64(len(systems))-0.5
			p.Y.Min = 0
			p.Y.Max *= 1.05
			p.Y.Tick.Marker = niceTicks{}
		}
		grid = append(grid, []*plot.Plot{comm, kern})
	}
	title := fmt.Sprintf("Fig. 4(a): slowdown of a %s all-reduce beside a kernel, and of the kernel (memory policy %s)", units.SizeLabel(res.Size, ""), res.Policy)
	return figure{title: title, keys: keys, panels: grid, panelHeight: 2.6 * vg.Inch}.save(dir, "fig4")
}

// CCubeFig12a draws C1's gain over B against the all-reduce's size, a line
// per endpoint and way of cutting it into chunks, beside the paper's
// model's gain and its measured 64 MB point (the C-Cube paper's
// Fig. 12(a)). It writes dir/ccube-fig12a.{png,svg}.
func CCubeFig12a(rows []reproduce.CCubeRow, dir string) ([]string, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("ccube-fig12a plot: no rows")
	}
	way := func(r reproduce.CCubeRow) string {
		ep := string(r.Endpoint)
		if r.Endpoint == reproduce.ACE {
			ep = "ACE"
		}
		if r.Chunk == r.Size {
			return ep + ", one-shot"
		}
		return fmt.Sprintf("%s, %s chunks", ep, units.SizeLabel(r.Chunk, ""))
	}
	for _, r := range rows {
		if r.Size <= 0 {
			return nil, fmt.Errorf("ccube-fig12a plot: a row of %d B: sizes are drawn on a log scale and must be positive", r.Size)
		}
	}
	var lines []series
	var model plotter.XYs
	lo, hi := float64(rows[0].Size), float64(rows[0].Size)
	for _, name := range distinct(rows, way) {
		var xy plotter.XYs
		for _, r := range rows {
			if way(r) == name {
				xy = append(xy, plotter.XY{X: float64(r.Size), Y: 100 * r.Gain})
			}
		}
		lines = append(lines, series{name: name, xy: xy})
	}
	var sizes []int64
	for _, r := range rows {
		lo, hi = min(lo, float64(r.Size)), max(hi, float64(r.Size))
		if !slices.Contains(sizes, r.Size) {
			sizes = append(sizes, r.Size)
			if r.Model > 0 {
				model = append(model, plotter.XY{X: float64(r.Size), Y: 100 * r.Model})
			}
		}
	}
	var colours []color.Color
	for i := range lines {
		colours = append(colours, colour(i))
	}
	if len(model) > 0 { // black, dashed, its points a shape of its own
		lines = append(lines, series{name: "the paper's model, one-shot (Eqs. (5), (7))", xy: model, dashed: true})
		colours = append(colours, color.Black)
	}
	p := newPlot("", "all-reduce size per GPU", "C1's gain over B (%)")
	keys, err := addLines(p, lines, colours...)
	if err != nil {
		return nil, err
	}
	var paper plotter.XYs
	for _, q := range reproduce.CCubePaper {
		if q.Size > 0 {
			paper = append(paper, plotter.XY{X: float64(q.Size), Y: 100 * q.Gain})
			lo, hi = min(lo, float64(q.Size)), max(hi, float64(q.Size))
			if !slices.Contains(sizes, q.Size) {
				sizes = append(sizes, q.Size) // its place named on the axis
			}
		}
	}
	if len(paper) > 0 {
		pp := &plotter.Scatter{XYs: paper, GlyphStyle: mark(color.Black, draw.BoxGlyph{})} // as the other papers' measured points
		p.Add(pp)
		keys = append(keys, key{text: "the paper, measured on a DGX-1 (Fig. 12(a))", thumbs: []plot.Thumbnailer{pp}})
	}
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = lo/1.5, hi*1.5 // room around the ends on the log scale
	var ticks []plot.Tick
	for _, s := range sizes {
		ticks = append(ticks, plot.Tick{Value: float64(s), Label: units.SizeLabel(s, "")})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min = 0
	p.Y.Max = max(100, p.Y.Max) * 1.08
	p.Y.Tick.Marker = niceTicks{}
	return figure{title: "C-Cube Fig. 12(a): the overlapped double tree (C1) over the conventional one (B) on dgx1", keys: keys,
		panels: [][]*plot.Plot{{p}}, panelHeight: 3.2 * vg.Inch}.save(dir, "ccube-fig12a")
}

// CCubeFig13 draws each configuration's training throughput over B's on
// each system, a panel per workload, beside the paper's mean and largest
// gains (the C-Cube paper's Fig. 13). It writes dir/ccube-fig13.{png,svg}.
func CCubeFig13(rows []reproduce.CCubeTrainingRow, dir string) ([]string, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("ccube-fig13 plot: no rows")
	}
	var configs []string
	for _, c := range compare.CCubeConfigs {
		if slices.ContainsFunc(rows, func(r reproduce.CCubeTrainingRow) bool { return r.Config == c.Name }) {
			configs = append(configs, c.Name)
		}
	}
	systems := distinct(rows, func(r reproduce.CCubeTrainingRow) string { return r.System })
	workloads := distinct(rows, func(r reproduce.CCubeTrainingRow) string { return r.Workload })
	cols := min(2, len(workloads)) // panels to a row
	var panels []*plot.Plot
	var keys []key
	for _, wl := range workloads {
		p := newPlot(wl, "configuration", "throughput over B (×)")
		slots := len(systems) + 1 // the systems' bars and the paper's marks
		w := barWidth(pageWidth/vg.Length(cols), len(configs), slots)
		for i, s := range systems {
			v := make(plotter.Values, len(configs))
			for _, r := range rows {
				if r.Workload == wl && r.System == s {
					v[slices.Index(configs, r.Config)] = 1 + r.Gain
				}
			}
			b, err := bars(p, v, w, i, slots, colour(i), nil)
			if err != nil {
				return nil, fmt.Errorf("ccube-fig13 plot: %w", err)
			}
			if len(panels) == 0 {
				keys = append(keys, key{text: shortName(s), thumbs: []plot.Thumbnailer{b}})
			}
		}
		// The paper's gains beside the bars, in the place of one more.
		var mean, most plotter.XYs
		for _, q := range reproduce.CCubeTrainingPaper {
			if c := slices.Index(configs, q.Config); c >= 0 {
				mean = append(mean, plotter.XY{X: float64(c), Y: 1 + q.Mean})
				most = append(most, plotter.XY{X: float64(c), Y: 1 + q.Max})
			}
		}
		if len(mean) > 0 {
			off := (vg.Length(len(systems)) - vg.Length(slots-1)/2) * w
			ms := &beside{XYs: mean, off: off, style: mark(color.Black, draw.BoxGlyph{})}
			mx := &beside{XYs: most, off: off, style: mark(color.Black, draw.TriangleGlyph{})}
			p.Add(ms, mx)
			if len(panels) == 0 {
				keys = append(keys, key{text: "the paper, mean over its runs", thumbs: []plot.Thumbnailer{ms}},
					key{text: "the paper, largest", thumbs: []plot.Thumbnailer{mx}})
			}
		}
		one, err := hline(p, 1, -0.5, float64(len(configs))-0.5)
		if err != nil {
			return nil, fmt.Errorf("ccube-fig13 plot: %w", err)
		}
		if len(panels) == 0 {
			keys = append(keys, key{text: "B's throughput", thumbs: []plot.Thumbnailer{one}})
		}
		p.NominalX(configs...)
		p.X.Min, p.X.Max = -0.5, float64(len(configs))-0.5
		p.Y.Min = 0
		p.Y.Max *= 1.08
		p.Y.Tick.Marker = niceTicks{}
		panels = append(panels, p)
	}
	return figure{title: "C-Cube Fig. 13: training on dgx1 under B, C1, C2, CC and R, one iteration in the steady state", keys: keys,
		panels: inRows(panels, cols), panelHeight: 3 * vg.Inch}.save(dir, "ccube-fig13")
}

// beside draws a glyph at each point, off to the right of it (bars'
// places are in points, not in the axis's units).
type beside struct {
	plotter.XYs
	off   vg.Length
	style draw.GlyphStyle
}

// Plot draws the glyphs.
func (b *beside) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, q := range b.XYs {
		c.DrawGlyph(b.style, vg.Point{X: trX(q.X) + b.off, Y: trY(q.Y)})
	}
}

// DataRange is the points' range.
func (b *beside) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(b.XYs) }

// Thumbnail draws the glyph for a legend.
func (b *beside) Thumbnail(c *draw.Canvas) { c.DrawGlyph(b.style, c.Center()) }

// paperGPUs are the GPUs of the BlueConnect paper's largest run (Section
// 4: 48 nodes of 4 GPUs).
const paperGPUs = 192

// blueConnectNames are BlueConnectAlgorithms as the BlueConnect paper
// names them.
var blueConnectNames = map[string]string{"ring": "Ring", "two-level": "GLOO", "blueconnect": "BLC"}

// BlueConnectFig3 draws the all-reduce's time against the GPUs under each
// algorithm, beside the paper's α-β model (dashed), and with the paper's
// 100 MB run its measured overheads on 192 GPUs (the BlueConnect paper's
// Fig. 3(a)). It writes dir/blueconnect-fig3.{png,svg}.
func BlueConnectFig3(res *reproduce.BlueConnectResult, dir string) ([]string, error) {
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("blueconnect-fig3 plot: no rows")
	}
	n := len(reproduce.BlueConnectAlgorithms)
	for _, r := range res.Rows {
		if len(r.Ms) != n || len(r.ModelMs) != n || r.NPUs <= 0 {
			return nil, fmt.Errorf("blueconnect-fig3 plot: fabric %s has %d GPUs, %d times and %d model times: give a positive count and one time each for %v",
				r.Fabric, r.NPUs, len(r.Ms), len(r.ModelMs), reproduce.BlueConnectAlgorithms)
		}
	}
	p := newPlot("", "GPUs", "all-reduce time (ms)")
	var ticks []plot.Tick
	for _, r := range res.Rows {
		ticks = append(ticks, plot.Tick{Value: float64(r.NPUs), Label: strconv.Itoa(r.NPUs)})
	}
	var runs, models []series
	var colours []color.Color
	for i, a := range reproduce.BlueConnectAlgorithms {
		var run, model plotter.XYs
		for _, r := range res.Rows {
			run = append(run, plotter.XY{X: float64(r.NPUs), Y: r.Ms[i]})
			model = append(model, plotter.XY{X: float64(r.NPUs), Y: r.ModelMs[i]})
		}
		runs = append(runs, series{name: blueConnectNames[a], xy: run})
		models = append(models, series{name: blueConnectNames[a] + ", α-β model", xy: model, dashed: true, bare: true})
		colours = append(colours, colour(i))
	}
	keys, err := addLines(p, runs, colours...)
	if err != nil {
		return nil, err
	}
	mk, err := addLines(p, models, colours...)
	if err != nil {
		return nil, err
	}
	keys = append(keys, mk...)
	lo, hi := ticks[0].Value, ticks[len(ticks)-1].Value
	// The paper's measured overheads are of its 100 MB all-reduce on 192
	// GPUs (Section 4): drawn beside a run of that size only.
	if res.Size == reproduce.DefaultBlueConnect().Size {
		for _, q := range []struct {
			alg string
			ms  float64
		}{{"two-level", reproduce.PaperGLOOMs}, {"blueconnect", reproduce.PaperBLCOverheadMs}} {
			i := slices.Index(reproduce.BlueConnectAlgorithms, q.alg)
			s := &plotter.Scatter{XYs: plotter.XYs{{X: paperGPUs, Y: q.ms}}, GlyphStyle: mark(colour(i), draw.BoxGlyph{})}
			p.Add(s)
			keys = append(keys, key{text: fmt.Sprintf("%s, the paper's measured overhead, %d GPUs", blueConnectNames[q.alg], paperGPUs), thumbs: []plot.Thumbnailer{s}})
		}
		lo, hi = min(lo, paperGPUs), max(hi, paperGPUs)
	}
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = lo/1.3, hi*1.3 // room around the ends on the log scale
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min = 0
	p.Y.Max *= 1.08
	p.Y.Tick.Marker = niceTicks{}
	title := fmt.Sprintf("BlueConnect Fig. 3: a %s all-reduce on multi-tier switch fabrics (ideal endpoint)", units.SizeLabel(res.Size, ""))
	return figure{title: title, keys: keys, panels: [][]*plot.Plot{{p}}, panelHeight: 3.2 * vg.Inch}.save(dir, "blueconnect-fig3")
}
