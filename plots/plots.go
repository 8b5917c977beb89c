// Package plots draws acemu's results as the ACE paper draws them, as PNG
// and SVG files (gonum.org/v1/plot): network and compute utilisation over
// time per system (the paper's Fig. 10), each system's iteration split
// into compute and exposed communication (Fig. 11), network bandwidth
// against memory bandwidth and against SMs (Figs. 5 and 6), and the SRAM
// × FSM heat map (Fig. 9a).
package plots

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/rtl"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// formats are the files each figure is written as.
var formats = []string{"png", "svg"}

// width and height are a one-panel figure's size.
const width, height = 8 * vg.Inch, 4.5 * vg.Inch

// save writes p as dir/name.png and dir/name.svg, width by height, and
// returns the paths.
func save(p *plot.Plot, dir, name string) ([]string, error) {
	return saveGrid([][]*plot.Plot{{p}}, dir, name, width, height)
}

// millis is cycles in milliseconds at the NPU clock.
func millis(c float64) float64 { return c / rtl.ClockHz * 1e3 }

// title names the run a figure shows.
func title(rep *compare.Report, what string) string {
	return fmt.Sprintf("%s: %s on %s (%d NPUs), %s", what, rep.Workload, rep.Topology, rep.NPUs, rep.Memory)
}

// Utilization draws each system's network and compute utilisation over
// time from the series a comparison kept (compare.Options.Series): the
// share of link time carrying packets, and of the NPU's time running
// kernels, in each window of compare.WindowCycles, one panel per system on
// a shared time axis (the paper's Fig. 10). It writes
// dir/utilization.{png,svg}.
func Utilization(rep *compare.Report, dir string) ([]string, error) {
	var rows [][]*plot.Plot
	end := 0.0
	for _, s := range rep.Systems {
		end = max(end, millis(float64(len(s.NetworkUtilization)*compare.WindowCycles)))
	}
	if end == 0 { // runs that took no time: empty panels one window wide
		end = millis(compare.WindowCycles)
	}
	for i, s := range rep.Systems {
		if len(s.NetworkUtilization) == 0 && s.TotalCycles > 0 {
			return nil, fmt.Errorf("utilisation plot: system %s kept no utilisation over its %d cycles; run it with --plot or --timeseries", s.Name, s.TotalCycles)
		}
		p := plot.New()
		name := s.Name
		if s.TotalCycles == 0 {
			name += " (no time: nothing to compute or communicate)"
		}
		p.Title.Text = name
		if i == 0 {
			p.Title.Text = title(rep, "Network (line) and compute (shaded) utilisation") + "\n" + name
		}
		p.Title.TextStyle.Font.Size = vg.Points(10)
		p.Y.Label.Text = "%"
		p.Y.Min, p.Y.Max = 0, 110 // a line at 100 % clear of the frame
		p.X.Min, p.X.Max = 0, end
		p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 50, Label: "50"}, {Value: 100, Label: "100"}})
		if i == len(rep.Systems)-1 {
			p.X.Label.Text = fmt.Sprintf("time (ms); utilisation per window of %d cycles: network (links busy), compute (NPU running kernels)", compare.WindowCycles)
		} else {
			p.X.Tick.Marker = unlabelled{plot.DefaultTicks{}} // the bottom panel's labels serve all
		}
		if len(s.NetworkUtilization) == 0 { // a run of no time: an empty panel
			rows = append(rows, []*plot.Plot{p})
			continue
		}
		l, err := plotter.NewLine(overTime(s.NetworkUtilization))
		if err != nil {
			return nil, fmt.Errorf("utilisation plot: %w", err)
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(0.6)
		if len(s.ComputeUtilization) > 0 {
			// Compute as a shaded area under its share (windows are mostly
			// all or nothing: as a line it reads as a frame), the network's
			// line drawn over it.
			cl, err := plotter.NewLine(overTime(s.ComputeUtilization))
			if err != nil {
				return nil, fmt.Errorf("utilisation plot: %w", err)
			}
			cl.StepStyle = plotter.PostStep
			cl.FillColor = color.Gray{Y: 225}
			cl.Width = 0
			p.Add(cl)
		}
		p.Add(l)
		rows = append(rows, []*plot.Plot{p})
	}
	return saveGrid(rows, dir, "utilization", width, vg.Length(len(rows))*1.3*vg.Inch+0.6*vg.Inch)
}

// overTime is a utilisation series (shares per window) as percentages
// against time in milliseconds.
func overTime(us []float64) plotter.XYs {
	xy := make(plotter.XYs, len(us))
	for w, u := range us {
		xy[w] = plotter.XY{X: millis(float64(w * compare.WindowCycles)), Y: 100 * u}
	}
	return xy
}

// unlabelled marks an axis as its ticker does, without labels.
type unlabelled struct{ plot.Ticker }

// Ticks returns the ticker's ticks with no labels.
func (u unlabelled) Ticks(lo, hi float64) []plot.Tick {
	ts := u.Ticker.Ticks(lo, hi)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

// saveGrid writes a grid of plots (rows of equal length) as dir/name.png
// and dir/name.svg, w by h, and returns the paths.
func saveGrid(rows [][]*plot.Plot, dir, name string, w, h vg.Length) ([]string, error) {
	t := draw.Tiles{Rows: len(rows), Cols: len(rows[0]), PadX: vg.Points(16), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(12), PadY: vg.Points(6)}
	return saveDrawn(dir, name, w, h, func(dc draw.Canvas) {
		for i, cs := range plot.Align(rows, t, dc) {
			for j, c := range cs {
				rows[i][j].Draw(c)
			}
		}
	})
}

// saveDrawn writes what paint draws on a w by h canvas as dir/name.png
// and dir/name.svg, and returns the paths.
func saveDrawn(dir, name string, w, h vg.Length, paint func(draw.Canvas)) ([]string, error) {
	var paths []string
	for _, f := range formats {
		var c interface {
			vg.CanvasSizer
			io.WriterTo
		}
		switch f {
		case "png":
			c = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
		case "svg":
			c = vgsvg.New(w, h)
		}
		paint(draw.New(c))
		path := filepath.Join(dir, name+"."+f)
		if err := writeTo(path, c); err != nil {
			return nil, fmt.Errorf("plot %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func writeTo(path string, c io.WriterTo) error {
	f, err := outfile.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Abort()
		return err
	}
	return f.Close()
}

// Breakdown draws each system's mean iteration as a stacked bar: compute,
// then the communication it could not hide (the paper's Fig. 11). It
// writes dir/breakdown.{png,svg}.
func Breakdown(rep *compare.Report, dir string) ([]string, error) {
	p := plot.New()
	p.Title.Text = title(rep, "Iteration time")
	p.Y.Label.Text = "time per iteration (ms)"
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(8)
	compute, exposed := make(plotter.Values, len(rep.Systems)), make(plotter.Values, len(rep.Systems))
	var names []string
	for i, s := range rep.Systems {
		compute[i], exposed[i] = millis(s.ComputeCycles), millis(s.ExposedCommCycles)
		names = append(names, s.Name)
	}
	w := vg.Points(40)
	cb, err := plotter.NewBarChart(compute, w)
	if err != nil {
		return nil, fmt.Errorf("breakdown plot: %w", err)
	}
	cb.Color = color.RGBA{R: 70, G: 110, B: 170, A: 255}
	eb, err := plotter.NewBarChart(exposed, w)
	if err != nil {
		return nil, fmt.Errorf("breakdown plot: %w", err)
	}
	eb.Color = color.RGBA{R: 215, G: 120, B: 50, A: 255}
	eb.StackOn(cb)
	p.Add(cb, eb)
	p.Legend.Add("compute", cb)
	p.Legend.Add("exposed communication", eb)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5 // whole bars at both ends
	top := 0.0
	for i := range compute {
		top = max(top, compute[i]+exposed[i])
	}
	p.Y.Min, p.Y.Max = 0, 1.3*top // room for the legend above the bars
	return save(p, dir, "breakdown")
}
