package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/tw"
	"github.com/stretchr/testify/require"
)

// tableBlocks cuts a rendered table into its blocks (one box each) and
// each block into its header lines and data rows, every cell trimmed.
func tableBlocks(t *testing.T, out string) [][][]string {
	t.Helper()
	var blocks [][][]string
	var cur [][]string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "┌"):
			cur = nil
		case strings.HasPrefix(l, "└"):
			blocks = append(blocks, cur)
		case strings.HasPrefix(l, "│"):
			var cells []string
			for _, c := range strings.Split(strings.Trim(l, "│"), "│") {
				cells = append(cells, strings.TrimSpace(c))
			}
			cur = append(cur, cells)
		case strings.HasPrefix(l, "├"):
			cur = append(cur, nil) // the header's end
		default:
			t.Fatalf("not a table line: %q", l)
		}
	}
	return blocks
}

// blockHeader is a block's header, each cell's lines joined by a space,
// and its rows.
func blockHeader(bl [][]string) (header []string, rows [][]string) {
	end := 0
	for bl[end] != nil {
		end++
	}
	for c := range bl[0] {
		var words []string
		for _, l := range bl[:end] {
			if l[c] != "" {
				words = append(words, l[c])
			}
		}
		header = append(header, strings.Join(words, " "))
	}
	return header, bl[end+1:]
}

// requireNarrow requires every line of out to be at most width runes.
func requireNarrow(t *testing.T, out string, width int) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		require.LessOrEqual(t, utf8.RuneCountInString(l), width, "%q", l)
	}
}

func TestRenderTableFits(t *testing.T) {
	wideHeader := make([]string, 20)
	wideRow := make([]string, 20)
	for i := range wideHeader {
		wideHeader[i] = fmt.Sprintf("column %d", i)
		wideRow[i] = fmt.Sprintf("value %d", 1000+i)
	}
	wideRow[0] = "key"
	for _, tc := range []struct {
		name   string
		header []string
		rows   [][]string
		keys   int
		width  int
		// blocks is every block's header, words joined by one space.
		blocks [][]string
		// lines is the header lines of the first block, when checked.
		lines int
	}{
		{name: "narrow", header: []string{"name", "cycles"}, rows: [][]string{{"ace", "12"}, {"ideal", "3"}},
			keys: 1, width: 100, blocks: [][]string{{"name", "cycles"}}, lines: 1},
		{name: "headers wrap", header: []string{"system", "total cycles", "exposed comm %"}, rows: [][]string{{"a-long-system-name", "1", "2"}},
			keys: 1, width: 45, blocks: [][]string{{"system", "total cycles", "exposed comm %"}}, lines: 2},
		{name: "wide header on one line", header: []string{"system", "total cycles", "exposed comm %"}, rows: [][]string{{"a-long-system-name", "1", "2"}},
			keys: 1, width: 0, blocks: [][]string{{"system", "total cycles", "exposed comm %"}}, lines: 1},
		{name: "twenty columns wide", header: wideHeader, rows: [][]string{wideRow}, keys: 1, width: 0, blocks: [][]string{wideHeader}, lines: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, renderTable(&b, tc.header, tc.rows, tc.keys, tc.width))
			if tc.width > 0 {
				requireNarrow(t, b.String(), tc.width)
			}
			blocks := tableBlocks(t, b.String())
			require.Len(t, blocks, len(tc.blocks))
			for i, bl := range blocks {
				hdr, rows := blockHeader(bl)
				require.Equal(t, tc.blocks[i], hdr)
				if i == 0 {
					require.Equal(t, tc.lines, len(bl)-len(rows)-1, "header lines")
				}
				require.Equal(t, tc.rows, rows, "rows unchanged")
			}
		})
	}
}

func TestRenderTableSplits(t *testing.T) {
	var header []string
	var rows [][]string
	for r := range 3 {
		var row []string
		for c := range 20 {
			if r == 0 {
				header = append(header, fmt.Sprintf("metric %d", c))
			}
			row = append(row, fmt.Sprintf("%d.%d", 1000*r+c, c))
		}
		row[0], row[1] = fmt.Sprintf("system-%d", r), fmt.Sprintf("4x%dx2", r)
		rows = append(rows, row)
	}
	for _, keys := range []int{1, 2} {
		t.Run(fmt.Sprint(keys, " keys"), func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, renderTable(&b, header, rows, keys, tableWidth))
			requireNarrow(t, b.String(), tableWidth)
			blocks := tableBlocks(t, b.String())
			require.Greater(t, len(blocks), 1)
			seen := map[string]int{} // a data cell's (row, column) → times printed
			for _, bl := range blocks {
				cols, printed := blockHeader(bl)
				require.Equal(t, header[:keys], cols[:keys], "every block repeats the keys")
				require.Len(t, printed, len(rows))
				for r, row := range printed {
					for c, cell := range row {
						col := -1
						for i, h := range header {
							if h == cols[c] {
								col = i
							}
						}
						require.GreaterOrEqual(t, col, 0, cols[c])
						require.Equal(t, rows[r][col], cell)
						seen[fmt.Sprint(r, ",", col)]++
					}
				}
			}
			for r := range rows {
				for c := range header {
					want := 1
					if c < keys {
						want = len(blocks)
					}
					require.Equal(t, want, seen[fmt.Sprint(r, ",", c)], "row %d column %d", r, c)
				}
			}
		})
	}
}

func TestRenderTableWrapsProse(t *testing.T) {
	prose := strings.Repeat("a cell of prose, ", 12)
	var b bytes.Buffer
	require.NoError(t, renderTable(&b, []string{"quantity", "value"}, [][]string{{"phases", prose}, {"time", "12 cycles"}}, 1, tableWidth))
	requireNarrow(t, b.String(), tableWidth)
	blocks := tableBlocks(t, b.String())
	require.Len(t, blocks, 1)
	var cell []string
	for _, l := range blocks[0][2:] {
		if l[0] == "phases" || (l[0] == "" && len(cell) > 0) {
			cell = append(cell, l[1])
		}
	}
	require.Greater(t, len(cell), 1, "the prose is on several lines")
	require.Equal(t, strings.TrimSpace(prose), strings.Join(cell, " "))
}

func TestWrapWords(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"total cycles", 6, "total\ncycles"},
		{"peak link util %", 9, "peak link\nutil %"},
		{"exposed comm %", 4, "exposed\ncomm\n%"},
		{"a bb ccccccccc", 9, "a bb\nccccccccc"},
		{"one", 10, "one"},
	} {
		require.Equal(t, tc.want, wrapWords(tc.in, tc.width), tc.in)
	}
}

func TestColumnAligns(t *testing.T) {
	rows := [][]string{
		{"ace", "12", "1.79×", "200GB/s", "12.0 (66.7)", "4x2x2", "-", "-", "+0.74", "- (–)", "1 (x)"},
		{"ideal", "-3.5", "–", "", "5 %", "4x4x4", "-", "x", "–", "48.9 (2.67×)", "2"},
	}
	l, r := tw.AlignLeft, tw.AlignRight
	require.Equal(t, []tw.Align{l, r, r, r, r, l, l, l, r, r, l}, columnAligns(11, rows))
}

// TestTablesFitTheTerminal runs commands whose tables are wider than the
// terminal in the table format: every line fits tableWidth, and --wide
// prints each table in one piece, as wide as it takes.
func TestTablesFitTheTerminal(t *testing.T) {
	for _, args := range [][]string{
		{"sweep", "--workload", "dlrm", "--topo", "4x2x2", "--set", "ace.fsms=8,16", "--systems", "ace,ideal"},
		{"reproduce", "fig4", "--topos", "4x2x1", "--size", "8MB"},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, out, errOut := runCLI(args...)
			require.Equal(t, 0, code, errOut)
			requireNarrow(t, out, tableWidth)
			code, wide, errOut := runCLI(append(args, "--wide")...)
			require.Equal(t, 0, code, errOut)
			widest := 0
			for _, l := range strings.Split(wide, "\n") {
				widest = max(widest, utf8.RuneCountInString(l))
			}
			require.Greater(t, widest, tableWidth)
			require.Equal(t, 1, strings.Count(strings.SplitN(wide, "\n\n", 2)[0], "┌"), "the first table in one piece")
		})
	}
}
