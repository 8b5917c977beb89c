package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/systems"
)

// collectiveOptional are the CSV columns docs/cli.md says may be empty
// (where they do not apply: a bound only for the paper's all-reduce on a
// torus, the library for a baseline, ACE's for ACE, …), and the system
// they apply to ("" for any, decided by the run's flags).
var collectiveOptional = map[string]string{
	"analytical bound GB/s": "", "% of bound": "",
	"comm memory GB/s each way": "", "comm SM busy %": "baseline",
	"library launch cycles": "baseline", "library step cycles": "baseline",
	"ACE SRAM B": "ace", "ACE FSMs": "ace", "ACE partition": "ace",
	"SRAM read ports/bank": "ace", "SRAM write ports/bank": "ace", "SRAM port B": "ace",
	"ACE util %": "ace", "SRAM read busy %": "ace", "SRAM write busy %": "ace",
	"ALU busy %": "ace", "DMA busy %": "ace", "FSM busy %": "ace", "FSM holding finished chunk %": "ace",
	"data check": "", "microcode": "", "packet trace hash": "",
}

// knownName says whether cell is a name acemu collective's CSV may hold
// in column col of a run on topology topo.
func knownName(col, cell, topo string) bool {
	switch col {
	case "topology":
		return cell == topo
	case "op":
		op, err := collectives.ParseOp(cell)
		return err == nil && op.String() == cell
	case "algorithm":
		return slices.ContainsFunc(collectives.Algorithms(), func(a collectives.AlgorithmInfo) bool { return a.Name == cell })
	case "system":
		return slices.Contains(systems.Names(), cell) || cell == "baseline"
	case "ACE partition":
		return cell == ace.PartitionLittle || cell == ace.PartitionPaper
	case "data check":
		return cell == "correct" || cell == "wrong"
	case "microcode":
		return strings.HasSuffix(cell, ".txt")
	case "packet trace hash":
		return regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(cell)
	}
	return false
}

// acemu collective --format csv is one header and one record whose every
// cell is a number, a known name, or empty in a column that may be.
func TestCollectiveCSVRecord(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"ace torus", []string{"--topo", "4x2x2", "--system", "ace"}},
		{"commopt torus", []string{"--topo", "4x2x2", "--system", "baseline-commopt"}},
		{"baseline given", []string{"--topo", "4x2x2", "--system", "baseline", "--comm-sms", "4", "--comm-mem-bw", "300GB/s"}},
		{"ideal torus", []string{"--topo", "4x4x4", "--system", "ideal"}},
		{"ideal dgx1 checked", []string{"--topo", "dgx1", "--system", "ideal", "--check-data", "--trace-hash"}},
		{"ace switch", []string{"--topo", "switch:4x4", "--system", "ace", "--op", "reduce-scatter"}},
		{"nooverlap all-to-all", []string{"--topo", "4x2x2", "--system", "baseline-nooverlap", "--op", "all-to-all"}},
		{"group npus", []string{"--topo", "4x4x1", "--group-npus", groupNPUsExample, "--system", "baseline-compopt"}},
		{"microcode", []string{"--topo", "4x1x1", "--microcode", "../../testdata/badinput/uc0.txt", "--size", "4096B", "--system", "ace", "--check-data"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"collective", "--size", "256KiB", "--format", "csv"}, tc.args...)
			code, out, errOut := runCLI(args...)
			require.Equal(t, 0, code, errOut)
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			require.NoError(t, err)
			require.Len(t, recs, 2, "one header, one record")
			header, row := recs[0], recs[1]
			require.Len(t, row, len(header))
			topo := tc.args[slices.Index(tc.args, "--topo")+1]
			system := tc.args[slices.Index(tc.args, "--system")+1]
			for i, col := range header {
				cell := row[i]
				if cell == "" {
					applies, ok := collectiveOptional[col]
					require.True(t, ok, "column %q is empty but not optional", col)
					require.False(t, applies != "" && strings.HasPrefix(system, applies), "column %q is empty for %s, which it applies to", col, system)
					continue
				}
				if _, err := strconv.ParseFloat(cell, 64); err == nil {
					continue
				}
				require.True(t, knownName(col, cell, topo), "column %q: %q is neither a number nor a known name", col, cell)
			}
		})
	}
}

// --out's result.csv is the record --format csv prints, and its
// result.txt the table.
func TestCollectiveOutFiles(t *testing.T) {
	dir := t.TempDir()
	args := []string{"collective", "--topo", "4x2x2", "--size", "256KiB", "--system", "ace"}
	code, table, errOut := runCLI(append(args, "--out", dir)...)
	require.Equal(t, 0, code, errOut)
	code, record, errOut := runCLI(append(args, "--format", "csv")...)
	require.Equal(t, 0, code, errOut)
	for name, want := range map[string]string{"result.csv": record, "result.txt": table} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Equal(t, want, string(got), name)
	}
}

// The table is narrow: no line wider than 100 columns, for every system
// on a torus, the DGX-1 and a switch fabric.
func TestCollectiveTableWidth(t *testing.T) {
	for _, topo := range []string{"4x4x4", "dgx1", "switch:4x4"} {
		for _, sys := range systems.Names() {
			if s, err := systems.Lookup(sys); err == nil && s.Libra != systems.LibraNone {
				continue // LIBRA plans training runs; acemu collective refuses it (cases-libra2.json)
			}
			t.Run(topo+" "+sys, func(t *testing.T) {
				args := []string{"collective", "--topo", topo, "--system", sys, "--size", "256KiB", "--check-data"}
				if sys == "baseline" {
					args = append(args, "--comm-sms", "4", "--comm-mem-bw", "300GB/s")
				}
				code, out, errOut := runCLI(args...)
				require.Equal(t, 0, code, errOut)
				for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					require.LessOrEqual(t, utf8.RuneCountInString(line), 100, "too wide:\n%s", out)
				}
			})
		}
	}
}

// A --size with no unit is bytes, as before, and a note on stderr says
// so; stdout is what the size with its unit gives.
func TestBareSizeNote(t *testing.T) {
	for _, tc := range []struct {
		args []string
		note string
	}{
		{[]string{"collective", "--topo", "4x1x1", "--size", "4096"}, "acemu collective: --size 4096 has no unit, read as 4096 B"},
		{[]string{"collective", "--topo", "4x1x1", "--size", "4096", "--format", "csv"}, "acemu collective: --size 4096 has no unit, read as 4096 B"},
		{[]string{"microcode", "--topo", "4x1x1", "--size", "4096"}, "acemu microcode: --size 4096 has no unit, read as 4096 B"},
		{[]string{"reproduce", "fig4", "--topos", "4x1x1", "--systems", "ideal", "--size", "4096"}, "acemu reproduce: --size 4096 has no unit, read as 4096 B"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, tc.note+" (write 4096B to say so, or e.g. 64MiB or 64MB)\n", errOut)
			unit := slices.Clone(tc.args)
			unit[slices.Index(unit, "4096")] = "4KiB"
			code, want, errOut := runCLI(unit...)
			require.Equal(t, 0, code, errOut)
			require.Empty(t, errOut, "a size with a unit: no note")
			require.Equal(t, want, out)
		})
	}
}
