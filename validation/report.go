package validation

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/acemu/acemu/sweep"
)

// Result is one figure's outcome in the report.
type Result struct {
	Figure   Figure `json:"figure"`
	*Outcome `json:"outcome"`
}

// Report is the figures' outcomes, in the registry's order.
type Report struct {
	// Quick is whether the figures ran their CI-sized subsets.
	Quick   bool     `json:"quick,omitempty"`
	Results []Result `json:"results"`
	// own is whether its one figure ran in the report's directory itself
	// (RunIn): its plots are beside the report, not under NAME/.
	own bool
}

// Run runs the figures named (every figure when none are), each with e
// but its own directory under e.Dir (DIR/NAME), and returns the report.
func Run(e Env, names ...string) (*Report, error) {
	figs, err := selectFigures(e.Quick, names)
	if err != nil {
		return nil, err
	}
	rep := &Report{Quick: e.Quick}
	for _, f := range figs {
		fe := e
		if e.Dir != "" {
			fe.Dir = filepath.Join(e.Dir, f.Name)
			if err := os.MkdirAll(fe.Dir, 0o755); err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
		}
		if err := rep.add(f, fe); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// selectFigures is the figures a report runs: those named (every figure
// when none are), each with a quick subset when quick (a figure named
// without one is refused).
func selectFigures(quick bool, names []string) ([]Figure, error) {
	var figs []Figure
	if len(names) == 0 {
		for _, f := range registry {
			if !quick || f.Quick {
				figs = append(figs, f)
			}
		}
		return figs, nil
	}
	for _, n := range names {
		f, ok := Lookup(n)
		if !ok {
			return nil, fmt.Errorf("no figure %q; the figures are %s", n, strings.Join(Names(), ", "))
		}
		if quick && !f.Quick {
			return nil, f.NoQuick()
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// RunIn runs the figure called name with e as it is, its directory
// e.Dir itself (`acemu reproduce NAME`), and returns its report: the
// figure's part, its table (Outcome.Table) beside it. With a shard, the
// report holds no result: the shard's points are in e.Dir.
func RunIn(e Env, name string) (*Report, error) {
	figs, err := selectFigures(e.Quick, []string{name})
	if err != nil {
		return nil, err
	}
	rep := &Report{Quick: e.Quick, own: true}
	if err := rep.add(figs[0], e); err != nil {
		return nil, err
	}
	return rep, nil
}

// add runs figure f under e and adds its outcome to the report; a
// shard's figure adds none.
func (r *Report) add(f Figure, e Env) error {
	o, err := f.Run(e)
	if errors.Is(err, sweep.ErrSharded) && e.Shard.N > 1 {
		return nil // its shard's points are kept; the merge gives its outcome
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	for _, v := range o.Values {
		if math.IsNaN(v.Paper.Value) {
			return fmt.Errorf("%s: %s: the paper's value %q is not a number such as 94.3 or ≈ 450", f.Name, v.What, v.Paper.Text)
		}
	}
	r.Results = append(r.Results, Result{Figure: f, Outcome: o})
	return nil
}

// Names lists the registered figures' names.
func Names() []string {
	var out []string
	for _, f := range registry {
		out = append(out, f.Name)
	}
	return out
}

// Broken lists the findings that are not as the report expects (Finding.OK):
// "figure: claim (measured)", or for a known disagreement that no longer
// disagrees, "figure: claim now holds (measured); its known reason no
// longer applies: …".
func (r *Report) Broken() []string {
	var out []string
	for _, res := range r.Results {
		for _, f := range res.Findings {
			switch {
			case f.OK():
			case f.Holds:
				out = append(out, fmt.Sprintf("%s: %s now holds (%s); its known reason no longer applies: %s", res.Figure.Name, f.Claim, f.Measured, f.Known))
			default:
				out = append(out, fmt.Sprintf("%s: %s (%s)", res.Figure.Name, f.Claim, f.Measured))
			}
		}
	}
	return out
}

// drawInto draws a figure's plots into e.PlotDir or else e.Dir, if set
// (created if need be), and returns their names relative to it.
func drawInto(e Env, draw func(dir string) ([]string, error)) ([]string, error) {
	dir := cmp.Or(e.PlotDir, e.Dir)
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	paths, err := draw(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

// WriteMarkdown writes the report: per figure, a table of the paper's
// values beside acemu's (paper, acemu, ratio, within the paper's
// tolerance or not), the paper's findings checked, its notes and its
// plots (the PNGs, under each figure's directory).
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# acemu's validation report\n\n")
	if r.Quick {
		var same []string
		for _, res := range r.Results {
			if res.Figure.Same {
				same = append(same, res.Figure.Name)
			}
		}
		fmt.Fprintf(&b, "The quick subset (`--quick`): small sizes, whose values are not the papers' setups, but for %s, which run as their papers set them up; the findings are what to read.\n\n", strings.Join(same, ", "))
	}
	b.WriteString(r.summary() + "\n")
	for _, res := range r.Results {
		fmt.Fprintf(&b, "\n## %s: %s\n", res.Figure.Name, res.Figure.Title)
		dir := res.Figure.Name
		if r.own {
			dir = ""
		}
		res.writeSection(&b, dir, ".png")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// summary counts the values within the papers' tolerance and the
// findings that hold, and of those that do not, the known disagreements
// and the rest.
func (r *Report) summary() string {
	within, values, holds, findings, knownFail := 0, 0, 0, 0, 0
	for _, res := range r.Results {
		for _, v := range res.Values {
			values++
			if v.Within() {
				within++
			}
		}
		for _, f := range res.Findings {
			findings++
			if f.Holds {
				holds++
			} else if f.Known != "" {
				knownFail++
			}
		}
	}
	s := fmt.Sprintf("%d of %d values within the paper's tolerance; %d of %d findings hold", within, values, holds, findings)
	switch fail, bare := findings-holds, findings-holds-knownFail; {
	case fail == 0:
	case bare == 0 && fail == 1:
		s += " (the one that does not is a known disagreement, with its reason)"
	case bare == 0:
		s += fmt.Sprintf(" (each of the %d that do not is a known disagreement, with its reason)", fail)
	case knownFail == 0:
		s += fmt.Sprintf(" (none of the %d that do not has a reason in the report: the figures' analysis says what is known)", fail)
	default:
		are := "are known disagreements, each"
		if knownFail == 1 {
			are = "is a known disagreement,"
		}
		s += fmt.Sprintf(" (%d of the %d that do not %s with its reason; of the other %d the figure's analysis says what is known)", knownFail, fail, are, bare)
	}
	return s + "."
}

// writeSection writes a figure's generated part: where it is from and
// the command, its values and findings tables, notes, the runs behind
// them (its Table's rows, summary and notes) and plots (the files of
// extension ext, under plotDir).
func (res Result) writeSection(b *strings.Builder, plotDir, ext string) {
	f := res.Figure
	fmt.Fprintf(b, "\n\"%s\", %s. `acemu reproduce %s`.\n", f.Source.Title, f.Where, f.Name)
	if len(res.Values) > 0 {
		markdownTable(b, ValueHeader, res.ValueRows())
	}
	if len(res.Findings) > 0 {
		markdownTable(b, FindingHeader, res.FindingRows(yesNo(false)))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(b, "\n%s\n", n)
	}
	if t := res.Table; t != nil {
		b.WriteString("\nThe runs behind these rows:\n")
		markdownTable(b, t.Header, t.Rows)
		if t.Summary != nil {
			markdownTable(b, t.Summary.Header, t.Summary.Rows)
		}
		for _, n := range t.Notes {
			fmt.Fprintf(b, "\n%s\n", n)
		}
	}
	for _, p := range res.Plots {
		if filepath.Ext(p) == ext {
			fmt.Fprintf(b, "\n![%s](%s)\n", f.Name, filepath.ToSlash(filepath.Join(plotDir, p)))
		}
	}
}

// markdownTable writes a table of header and rows, after a blank line;
// a cell's "|" is escaped, so it does not end the cell.
func markdownTable(b *strings.Builder, header []string, rows [][]string) {
	fmt.Fprintf(b, "\n| %s |\n|%s\n", markdownRow(header), strings.Repeat("---|", len(header)))
	for _, row := range rows {
		fmt.Fprintf(b, "| %s |\n", markdownRow(row))
	}
}

// markdownRow joins a table row's cells, each "|" escaped.
func markdownRow(cells []string) string {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return strings.Join(esc, " | ")
}

// The columns of a figure's values and findings, as the report's tables
// give them (ValueRows, FindingRows).
var (
	ValueHeader   = []string{"quantity", "paper", "acemu", "acemu / paper", "within the paper's precision"}
	FindingHeader = []string{"the paper's finding", "holds", "acemu"}
)

// ValueRows are the figure's values as the report's table gives them: the
// quantity, the paper's value, acemu's, their ratio and whether acemu is
// within the paper's precision (ValueHeader).
func (res Result) ValueRows() [][]string {
	var rows [][]string
	for _, v := range res.Values {
		rows = append(rows, []string{v.What, withUnit(v.Paper.Text, v.Unit), acemuCell(v), ratioCell(v), withinCell(v)})
	}
	return rows
}

// FindingRows are the figure's findings as the report's table gives them:
// the claim and where the paper makes it, whether it holds (no: "no" as
// a finding that does not hold is written), and what acemu measured
// (FindingHeader).
func (res Result) FindingRows(no string) [][]string {
	var rows [][]string
	for _, x := range res.Findings {
		holds := "yes"
		if !x.Holds {
			holds = no
		}
		if x.Known != "" {
			holds += " (known: " + x.Known + ")"
		}
		rows = append(rows, []string{x.Claim + " (" + x.Where + ")", holds, x.Measured})
	}
	return rows
}

// Summary counts the values within the papers' tolerance and the
// findings that hold, and the known disagreements, in a sentence.
func (r *Report) Summary() string { return r.summary() }

// withUnit appends a unit to a value: "94.3 %", "2.67×", "450 GB/s".
func withUnit(s, unit string) string {
	switch unit {
	case "":
		return s
	case "×":
		return s + "×"
	}
	return s + " " + unit
}

// acemuCell is acemu's value to as many decimals as the paper prints, one
// more (a whole number beside a whole number: none), or why there is none.
func acemuCell(v Value) string {
	if v.None != "" {
		return "– (" + v.None + ")"
	}
	return withUnit(acemuDigits(v), v.Unit)
}

// acemuDigits is acemu's value as acemuCell prints it, without its unit:
// to as many decimals as the paper prints, one more (a whole number
// beside a whole number: none).
func acemuDigits(v Value) string {
	d := decimalsOf(v.Paper.Text) + 1
	if d == 1 && v.Acemu == math.Trunc(v.Acemu) {
		d = 0
	}
	return strconv.FormatFloat(v.Acemu, 'f', d, 64)
}

// ratioCell is acemu's value over the paper's.
func ratioCell(v Value) string {
	if r := v.Ratio(); r != 0 {
		return strconv.FormatFloat(r, 'f', 3, 64)
	}
	return "–"
}

// withinCell says whether acemu is within the paper's tolerance, and if
// not by how much it is off, with the reason where one is known.
func withinCell(v Value) string {
	if v.Within() {
		return "yes (± " + strconv.FormatFloat(v.Paper.Tolerance, 'g', -1, 64) + ")"
	}
	s := "no"
	if v.None == "" {
		off := strings.Replace(strconv.FormatFloat(v.Acemu-v.Paper.Value, 'f', decimalsOf(v.Paper.Text)+1, 64), "-", "−", 1)
		s += fmt.Sprintf(" (± %s; off by %s)", strconv.FormatFloat(v.Paper.Tolerance, 'g', -1, 64), withUnit(off, v.Unit))
	}
	if v.Why != "" {
		s += ": " + v.Why
	}
	return s
}

// decimalsOf is how many decimals a printed value has.
func decimalsOf(text string) int {
	if i := strings.IndexByte(text, '.'); i >= 0 {
		n := 0
		for _, c := range text[i+1:] {
			if c < '0' || c > '9' {
				break
			}
			n++
		}
		return n
	}
	return 0
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}
