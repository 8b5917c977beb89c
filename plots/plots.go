// Package plots draws acemu's results as the papers draw them, as PNG
// and SVG files at the size they print (gonum.org/v1/plot; docs/cli.md,
// "Figures"): network and compute utilisation over time per system (the
// ACE paper's Fig. 10), each system's iteration split into compute and
// exposed communication (Fig. 11), and the reproductions of `acemu
// reproduce`: the ACE paper's Figs. 4(a), 5, 6, 9(a), 9(b) and 11, the
// C-Cube paper's Figs. 12(a) and 13 and the BlueConnect paper's Fig. 3.
package plots

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image/color"
	"io"
	"path/filepath"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/rtl"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// formats are the files each figure is written as.
var formats = []string{"png", "svg"}

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
		p := newPlot("", "", "%")
		name := s.Name
		if s.TotalCycles == 0 {
			name += " (no time: nothing to compute or communicate)"
		}
		p.Title.Text = name
		p.Y.Min, p.Y.Max = 0, 110 // a line at 100 % clear of the frame
		p.X.Min, p.X.Max = 0, end
		p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 50, Label: "50"}, {Value: 100, Label: "100"}})
		if i == len(rep.Systems)-1 {
			p.X.Label.Text = fmt.Sprintf("time (ms)\nutilisation per window of %d cycles: network (links busy), compute (NPU running kernels)", compare.WindowCycles)
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
		l.Color = colour(i)
		l.Width = vg.Points(0.8)
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
	f := figure{title: title(rep, "Network (line) and compute (shaded) utilisation"), panels: rows, panelHeight: 1.3 * vg.Inch}
	return f.save(dir, "utilization")
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

// saveDrawn writes what paint draws on a w by h canvas as dir/name.png
// (at dpi, which the file states) and dir/name.svg, and returns the
// paths.
func saveDrawn(dir, name string, w, h vg.Length, paint func(draw.Canvas)) ([]string, error) {
	var paths []string
	for _, f := range formats {
		var c interface {
			vg.CanvasSizer
			io.WriterTo
		}
		switch f {
		case "png":
			c = pngAtDPI{vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))}}
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

// pngAtDPI is a PNG canvas whose file states its resolution (a pHYs
// chunk: pixels per metre), so that it prints at the size it was drawn.
type pngAtDPI struct{ vgimg.PngCanvas }

// WriteTo writes the PNG with its pHYs chunk after the header.
func (c pngAtDPI) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	if _, err := c.PngCanvas.WriteTo(&buf); err != nil {
		return 0, err
	}
	b := buf.Bytes()
	const head = 8 + 4 + 4 + 13 + 4 // signature, then IHDR: length, type, data, CRC
	if len(b) < head || string(b[12:16]) != "IHDR" {
		return 0, fmt.Errorf("png: no header to state the resolution after")
	}
	n, err := w.Write(b[:head])
	if err != nil {
		return int64(n), err
	}
	m, err := w.Write(physChunk(dpi))
	n += m
	if err != nil {
		return int64(n), err
	}
	m, err = w.Write(b[head:])
	return int64(n + m), err
}

// physChunk is a PNG pHYs chunk stating dots per inch as pixels per metre
// (rounded: 300 dpi is 11811).
func physChunk(dotsPerInch int) []byte {
	ppm := uint32((int64(dotsPerInch)*10000 + 127) / 254) // 1 in = 0.0254 m
	data := binary.BigEndian.AppendUint32(nil, ppm)
	data = binary.BigEndian.AppendUint32(data, ppm)
	data = append(data, 1) // unit: the metre
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(chunk, "pHYs"...)
	chunk = append(chunk, data...)
	return binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
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
	p := newPlot("", "", "time per iteration (ms)")
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
	keys := []key{{text: "compute", thumbs: []plot.Thumbnailer{cb}}, {text: "exposed communication", thumbs: []plot.Thumbnailer{eb}}}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5 // whole bars at both ends
	top := 0.0
	for i := range compute {
		top = max(top, compute[i]+exposed[i])
	}
	p.Y.Min, p.Y.Max = 0, 1.05*top
	p.Y.Tick.Marker = niceTicks{}
	return figure{title: title(rep, "Iteration time"), keys: keys, panels: [][]*plot.Plot{{p}}, panelHeight: 3 * vg.Inch}.save(dir, "breakdown")
}
