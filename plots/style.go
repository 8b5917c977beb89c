package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The figures are drawn at the size they are printed (docs/cli.md,
// "Figures"): pageWidth wide, their text at the sizes below, and written
// as PNG at dpi dots per inch (pageWidth × dpi pixels wide) and as SVG.
const (
	pageWidth = 6.5 * vg.Inch
	dpi       = 300

	titleSize  = 10 // points: a figure's title
	panelSize  = 9  // a panel's title and its axes' labels
	tickSize   = 8  // tick labels, legends and labels on the data
	legendGap  = 4  // points between a legend's entries' rows
	keyWidth   = 18 // points: a legend key's sample
	panelPad   = 10 // points between panels
	stripBreak = 6  // points above and below a title or legend strip
)

// textStyle is the figures' text at size points.
func textStyle(size vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, size), Handler: plot.DefaultTextHandler}
}

// newPlot is a panel in the figures' style: its title, axis labels and
// ticks at their print sizes, the axes starting at zero unless its caller
// says otherwise.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Title.TextStyle.Font.Size = panelSize
	p.Title.Padding = vg.Points(4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = panelSize
		a.Tick.Label.Font.Size = tickSize
		a.Label.Padding = vg.Points(2)
	}
	p.Legend.TextStyle.Font.Size = tickSize
	return p
}

// key is one entry of a figure's legend: its text and what draws its
// sample (the lines, points or bars it names).
type key struct {
	text   string
	thumbs []plot.Thumbnailer
}

// legendRows lays keys out in rows no wider than w, in order.
func legendRows(keys []key, w vg.Length) [][]key {
	sty := textStyle(tickSize)
	var rows [][]key
	used := vg.Length(0)
	for _, k := range keys {
		kw := keyWidth + vg.Points(3) + sty.Width(k.text) + vg.Points(12)
		if len(rows) == 0 || used+kw > w {
			rows, used = append(rows, nil), 0
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], k)
		used += kw
	}
	return rows
}

// legendHeight is the height of keys laid out w wide.
func legendHeight(keys []key, w vg.Length) vg.Length {
	n := len(legendRows(keys, w))
	if n == 0 {
		return 0
	}
	return vg.Length(n)*(textStyle(tickSize).Height("M")+legendGap) + 2*stripBreak
}

// drawLegend draws keys in centred rows across c, outside every panel, so
// that no legend covers data.
func drawLegend(c draw.Canvas, keys []key) {
	sty := textStyle(tickSize)
	sty.YAlign = draw.YCenter
	rowH := sty.Height("M") + legendGap
	y := c.Max.Y - stripBreak - rowH/2
	for _, row := range legendRows(keys, c.Max.X-c.Min.X) {
		w := vg.Length(0)
		for _, k := range row {
			w += keyWidth + vg.Points(3) + sty.Width(k.text) + vg.Points(12)
		}
		x := c.Min.X + (c.Max.X-c.Min.X-w)/2
		for _, k := range row {
			box := c
			box.Min = vg.Point{X: x, Y: y - rowH/2 + 1}
			box.Max = vg.Point{X: x + keyWidth, Y: y + rowH/2 - 1}
			for _, t := range k.thumbs {
				t.Thumbnail(&box)
			}
			c.FillText(sty, vg.Point{X: x + keyWidth + vg.Points(3), Y: y}, k.text)
			x += keyWidth + vg.Points(3) + sty.Width(k.text) + vg.Points(12)
		}
		y -= rowH
	}
}

// block is a horizontal strip of a figure: height tall (0: a share of
// what the fixed strips leave), drawn by paint.
type block struct {
	height vg.Length
	paint  func(draw.Canvas)
}

// titleBlock is a figure's title, centred; lines split at "\n".
func titleBlock(title string) block {
	sty := textStyle(titleSize)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	return block{height: sty.Height(title) + 2*stripBreak, paint: func(c draw.Canvas) {
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - stripBreak}, title)
	}}
}

// legendBlock is a legend strip across the figure.
func legendBlock(keys []key) block {
	return block{height: legendHeight(keys, pageWidth), paint: func(c draw.Canvas) { drawLegend(c, keys) }}
}

// gridBlock is panels in rows (nil: an empty place), their axes aligned.
func gridBlock(rows [][]*plot.Plot) block {
	return block{paint: func(c draw.Canvas) {
		t := draw.Tiles{Rows: len(rows), Cols: len(rows[0]), PadX: vg.Points(panelPad), PadY: vg.Points(panelPad),
			PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(8)}
		for i, cs := range plot.Align(rows, t, c) {
			for j, pc := range cs {
				if rows[i][j] != nil {
					rows[i][j].Draw(pc)
				}
			}
		}
	}}
}

// stack draws blocks top to bottom: the fixed ones at their heights, the
// others sharing what is left equally.
func stack(blocks ...block) func(draw.Canvas) {
	return func(c draw.Canvas) {
		fixed, shares := vg.Length(0), 0
		for _, b := range blocks {
			fixed += b.height
			if b.height == 0 {
				shares++
			}
		}
		rest := c.Max.Y - c.Min.Y - fixed
		top := c.Max.Y
		for _, b := range blocks {
			h := b.height
			if h == 0 {
				h = rest / vg.Length(shares)
			}
			bc := c
			bc.Min.Y, bc.Max.Y = top-h, top
			b.paint(bc)
			top -= h
		}
	}
}

// figure is a figure's title, legend and panels, drawn panelHeight per
// row of panels.
type figure struct {
	title       string
	keys        []key
	panels      [][]*plot.Plot
	panelHeight vg.Length
}

// save writes f as dir/name.{png,svg}, pageWidth wide, and returns the
// paths.
func (f figure) save(dir, name string) ([]string, error) {
	var blocks []block
	if f.title != "" {
		blocks = append(blocks, titleBlock(f.title))
	}
	if len(f.keys) > 0 {
		blocks = append(blocks, legendBlock(f.keys))
	}
	blocks = append(blocks, gridBlock(f.panels))
	h := vg.Length(len(f.panels)) * f.panelHeight
	for _, b := range blocks {
		h += b.height
	}
	return saveDrawn(dir, name, pageWidth, h, stack(blocks...))
}

// inRows lays panels out cols to a row, the last row's empty places nil.
func inRows(panels []*plot.Plot, cols int) [][]*plot.Plot {
	cols = max(1, min(cols, len(panels)))
	var rows [][]*plot.Plot
	for i := 0; i < len(panels); i += cols {
		row := make([]*plot.Plot, cols)
		copy(row, panels[i:min(i+cols, len(panels))])
		rows = append(rows, row)
	}
	return rows
}

// lineKey is the legend key of a line with its points.
func lineKey(name string, l *plotter.Line, pts *plotter.Scatter) key {
	k := key{text: name, thumbs: []plot.Thumbnailer{l}}
	if pts != nil {
		k.thumbs = append(k.thumbs, pts)
	}
	return k
}
