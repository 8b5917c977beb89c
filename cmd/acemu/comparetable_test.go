package main

import (
	"encoding/csv"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/systems"
)

// requireCSVCells reads out as CSV with encoding/csv and requires a
// header and at least one row, every row as long as the header, and every
// data cell a number, one of names, or empty (not applicable) in a column
// optional allows. It returns the header and the rows.
func requireCSVCells(t *testing.T, out string, names []string, optional func(column string) bool) ([]string, [][]string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll() // every record as long as the first
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(recs), 2, "a header and a row")
	header := recs[0]
	for _, row := range recs[1:] {
		for i, c := range row {
			if c == "" {
				require.True(t, optional(header[i]), "column %q empty in %v", header[i], row)
				continue
			}
			if _, err := strconv.ParseFloat(c, 64); err == nil {
				continue
			}
			require.Contains(t, names, c, "column %q: %q is neither a number nor a known name", header[i], c)
		}
	}
	return header, recs[1:]
}

// The comparator's CSV is for machines: every data cell a number or a
// system's name, empty only where a quantity does not apply (ACE's own
// speed-up over itself, % of ideal without the ideal system, ACE's
// utilisation on other systems, the paper's figures where it gives none).
func TestComparatorCSVIsNumbersAndNames(t *testing.T) {
	optional := func(c string) bool {
		return c == "ACE speedup over it ×" || c == "% of ideal" || strings.HasPrefix(c, "ACE ") && strings.HasSuffix(c, "util %") || strings.HasPrefix(c, "paper ")
	}
	for _, tc := range []struct {
		name  string
		args  []string
		paper bool
	}{
		{"the main job, the paper beside", []string{"--format", "csv", "--other-regime=false"}, true},
		{"dlrm on 4x2x2", []string{"--workload", "dlrm", "--topo", "4x2x2", "--iterations", "1", "--format", "csv"}, false},
		{"a switch fabric, two systems", []string{"--workload", "dlrm", "--topo", "switch:4x2", "--systems", "ace,baseline-commopt", "--iterations", "1", "--format", "csv"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			require.Equal(t, 0, code, errOut)
			header, rows := requireCSVCells(t, out, systems.Names(), optional)
			require.Equal(t, tc.paper, slices.Contains(header, "paper % of ideal"))
			for _, h := range header[1:] { // every column but the system's has its unit
				require.Regexp(t, `cycles|ms|%|×|GB/s|B/NPU`, h)
			}
			// cycles and ms agree: 1245 cycles a µs.
			it, ms := slices.Index(header, "iteration cycles"), slices.Index(header, "iteration ms")
			for _, r := range rows {
				c, err := strconv.ParseFloat(r[it], 64)
				require.NoError(t, err)
				m, err := strconv.ParseFloat(r[ms], 64)
				require.NoError(t, err)
				require.InDelta(t, c/1245e3, m, 0.0005+1e-9, r[0])
			}
		})
	}
}

// The main job's table fits a 100-column terminal, its two tables and
// every line but the prose notes.
func TestMainTableFits100Columns(t *testing.T) {
	code, out, errOut := runCLI("--other-regime=false")
	require.Equal(t, 0, code, errOut)
	tables := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "┌") {
			tables++
		}
		if strings.ContainsAny(line, "│┌└├") {
			require.LessOrEqual(t, utf8.RuneCountInString(line), 100, "%q", line)
		}
	}
	require.Equal(t, 2, tables, "acemu's table and the paper's beside it")
}

// One convention for ratios in JSON: fractions of 1, with the schema
// version and the build first. The ideal's fraction of itself is 1 and
// the paper's 94.3 % is 0.943.
func TestComparatorJSONRatiosAreFractions(t *testing.T) {
	code, out, errOut := runCLI("--format", "json", "--other-regime=false", "--systems", "ace,ideal", "--iterations", "1", "--set", "ace.fsms=8")
	require.Equal(t, 0, code, errOut)
	var doc struct {
		Schema int `json:"schema_version"`
		Acemu  struct {
			Version, Commit string
			Settings        map[string]string
		} `json:"acemu"`
		Systems []compare.SystemResult      `json:"systems"`
		Paper   map[string]compare.PaperRow `json:"paper"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Equal(t, 2, doc.Schema)
	require.NotEmpty(t, doc.Acemu.Version)
	require.NotEmpty(t, doc.Acemu.Commit)
	require.Equal(t, map[string]string{"ace.fsms": "8", "training.iterations": "1"}, doc.Acemu.Settings)
	require.True(t, strings.HasPrefix(out, "{\n  \"schema_version\": 2,\n  \"acemu\": {"), "the provenance first")
	for _, s := range doc.Systems {
		require.NotNil(t, s.FractionOfIdeal, "%s: the ideal system ran", s.Name)
		for _, v := range []float64{*s.FractionOfIdeal, s.ExposedShare, s.LinkUtilization, s.PeakLinkUtilization, s.CommSMBusy} {
			require.GreaterOrEqual(t, v, 0.0, s.Name)
			require.LessOrEqual(t, v, 1.0, s.Name)
		}
	}
	require.Equal(t, 1.0, *doc.Systems[1].FractionOfIdeal)
	require.Equal(t, 0.943, doc.Paper["ace"].FractionOfIdeal)
	require.Less(t, *doc.Systems[0].FractionOfIdeal, 1.0)
}

// A table ends with the build and the settings changed from the defaults.
func TestTableSaysItsProvenance(t *testing.T) {
	code, out, errOut := runCLI("--workload", "dlrm", "--topo", "4x2x2", "--systems", "ace", "--iterations", "1", "--set", "ace.sram=8MiB", "--other-regime=false")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Regexp(t, `^acemu \S+, commit \S+(, modified)?; platform: the defaults but ace.sram=8MiB, training.iterations=1$`, lines[len(lines)-1])
}
