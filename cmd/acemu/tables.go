package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// tableWidth is the columns a table is fitted to unless --wide: a
// terminal's 100.
const tableWidth = 100

// fitWidth is the columns the table format fits: tableWidth, or 0 (as
// wide as it takes) with --wide.
func fitWidth(wide bool) int {
	if wide {
		return 0
	}
	return tableWidth
}

// minCapped is the narrowest a column's cells are wrapped to (step c of
// renderTable): key columns that would leave a block less room than that
// are not repeated.
const minCapped = 12

// renderTable draws a table of rows under header. With width 0 (--wide)
// it is one table, each header on one line. Otherwise, until the table
// fits width columns: headers wider than their column's data wrap at
// spaces; then the columns are split into blocks printed one under
// another, each repeating the first keys columns and holding as many of
// the others as fit; then a cell wider than a block could hold (prose)
// wraps. Numeric columns are right-aligned, text columns left-aligned.
func renderTable(w io.Writer, header []string, rows [][]string, keys, width int) error {
	aligns := columnAligns(len(header), rows)
	for _, b := range fitColumns(header, rows, keys, width) {
		t := newTable(w, pick(aligns, b.cols), b.caps)
		t.Header(pick(b.header, b.cols))
		for _, row := range rows {
			if err := t.Append(pick(row, b.cols)); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	return nil
}

// block is one printed piece of a table: its columns (indices into the
// whole table's), the whole table's headers as printed (wrapped onto
// several lines or not) and the widths, padding included, its columns'
// cells wrap at (by position in the block).
type block struct {
	cols   []int
	header []string
	caps   map[int]int
}

// fitColumns splits a table into the blocks renderTable prints (see
// there); one block of every column, headers unwrapped, when width is 0
// or the table fits.
func fitColumns(header []string, rows [][]string, keys, width int) []block {
	all := make([]int, len(header))
	for i := range all {
		all[i] = i
	}
	widths := make([]int, len(header)) // columns' widest data cell
	for _, row := range rows {
		for i, c := range row {
			if i < len(widths) {
				widths[i] = max(widths[i], textWidth(c))
			}
		}
	}
	col := func(i int, h string) int { return max(widths[i], textWidth(h)) }
	// span is how many terminal columns cols take: each its width, a
	// space either side and a bar after, with the first bar.
	span := func(cols []int, h []string) int {
		n := 1
		for _, c := range cols {
			n += col(c, h[c]) + 3
		}
		return n
	}
	if width <= 0 || span(all, header) <= width {
		return []block{{cols: all, header: header}}
	}
	// a. Headers wider than their data wrap at spaces, as narrow as the
	// data or their longest word.
	hdr := slices.Clone(header)
	for i, h := range header {
		if textWidth(h) > widths[i] {
			longest := 0
			for _, word := range strings.Fields(h) {
				longest = max(longest, utf8.RuneCountInString(word))
			}
			hdr[i] = wrapWords(h, max(widths[i], longest))
		}
	}
	if span(all, hdr) <= width {
		return []block{{cols: all, header: hdr}}
	}
	// b. Blocks of columns, each repeating the key columns; c. a column
	// that fits no block even alone wraps its cells.
	keys = min(keys, len(header))
	if span(all[:keys], hdr)+3+minCapped > width {
		keys = 0 // no room to repeat them
	}
	keySpan := span(all[:keys], hdr)
	fresh := func() block { return block{cols: slices.Clone(all[:keys]), header: hdr, caps: map[int]int{}} }
	var blocks []block
	cur, used := fresh(), keySpan
	for c := keys; c < len(header); c++ {
		cw := col(c, hdr[c])
		if keySpan+cw+3 > width {
			cw = width - keySpan - 3
		}
		if used+cw+3 > width && len(cur.cols) > keys {
			blocks = append(blocks, cur)
			cur, used = fresh(), keySpan
		}
		if cw < col(c, hdr[c]) {
			cur.caps[len(cur.cols)] = cw + 2
		}
		cur.cols = append(cur.cols, c)
		used += cw + 3
	}
	return append(blocks, cur)
}

// wrapWords breaks s at spaces into lines of at most width runes (a word
// longer than width on a line of its own): the fewest lines, each filled
// greedily.
func wrapWords(s string, width int) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return strings.Join(append(lines, line), "\n")
}

// textWidth is the terminal columns s takes: its longest line's runes.
func textWidth(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// pick is the elements of s at indices idx (missing ones empty).
func pick[T any](s []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		if j < len(s) {
			out[i] = s[j]
		}
	}
	return out
}

// numericCell is a number, possibly signed, with a decimal point or an
// exponent and a %, × or unit suffix (GB/s, MiB, mm²), or a dash (none),
// then perhaps another in parentheses: 12, -3.5, 1.79×, 200GB/s, 5.2 %,
// 12.0 (66.7), 48.9 (–), - (–).
var numericCell = regexp.MustCompile(`^` + numberOrDash + `( \(` + numberOrDash + `\))?$`)

// numberOrDash is numericCell's number or dash.
const numberOrDash = `([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)? ?(%|×|[A-Za-zµ²/]+)?|-|–|—)`

// columnAligns aligns each of n columns: right when every data cell is a
// number (numericCell) or empty, and a digit is in one at least; left
// otherwise.
func columnAligns(n int, rows [][]string) []tw.Align {
	aligns := make([]tw.Align, n)
	for i := range aligns {
		digits, text := false, false
		for _, row := range rows {
			c := ""
			if i < len(row) {
				c = strings.TrimSpace(row[i])
			}
			if c != "" && !numericCell.MatchString(c) {
				text = true
			}
			digits = digits || strings.ContainsAny(c, "0123456789")
		}
		aligns[i] = tw.AlignLeft
		if digits && !text {
			aligns[i] = tw.AlignRight
		}
	}
	return aligns
}

// writeProse writes lines (lead lines, notes), each wrapped at spaces to
// width columns (0: as they are), its continuation lines indented as it
// is.
func writeProse(w io.Writer, lines []string, width int) error {
	for _, text := range lines {
		for _, l := range strings.Split(text, "\n") {
			if width > 0 && utf8.RuneCountInString(l) > width {
				indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
				l = indent + strings.ReplaceAll(wrapWords(l, width-len(indent)), "\n", "\n"+indent)
			}
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// newTable is a table whose headers print as written (tablewriter would
// upper-case them and space out "GB/s"), a header line per "\n" in them;
// aligns aligns each column, header and cells, and caps holds the widths,
// padding included, the cells of a column (by index) wrap at, at spaces.
func newTable(w io.Writer, aligns []tw.Align, caps map[int]int) *tablewriter.Table {
	cfg := tablewriter.NewConfigBuilder().WithHeaderAutoFormat(tw.Off).Build()
	cfg.Header.Alignment.PerColumn = aligns
	cfg.Row.Alignment.PerColumn = aligns
	cfg.Row.Formatting.AutoWrap = tw.WrapNormal
	cfg.Row.ColMaxWidths.PerColumn = caps
	return tablewriter.NewTable(w, tablewriter.WithConfig(cfg))
}
