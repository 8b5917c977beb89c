package validation

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/platform"
)

// committedQuick is the quick subset's report as committed: every row,
// finding and table of `acemu reproduce all --quick`, without plots.
var committedQuick = filepath.Join(committedAnalysis, "quick.json")

// withoutPlots is what a figure's outcome says, without its plots'
// paths: its values, findings, notes and table.
func withoutPlots(o *Outcome) *Outcome {
	return &Outcome{Values: o.Values, Findings: o.Findings, Notes: o.Notes, Table: o.Table}
}

// rows is withoutPlots(o) as JSON.
func rows(t *testing.T, o *Outcome) string {
	t.Helper()
	b, err := json.Marshal(withoutPlots(o))
	require.NoError(t, err)
	return string(b)
}

// TestQuickFindingsHold runs every figure's quick subset and requires
// each of the papers' findings to hold on acemu: ACE ahead of every
// baseline, less memory bandwidth for 90 % of ideal than the baseline,
// returns diminishing past the paper's design point, and the rest. Its
// rows must be docs/validation/quick.json's, so a changed number shows
// up as a diff of that file (go test ./validation -run
// TestQuickFindingsHold -update rewrites it).
func TestQuickFindingsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every figure's quick subset")
	}
	committed := map[string]*Outcome{}
	if !*update {
		f, err := os.Open(committedQuick)
		require.NoError(t, err)
		rep, err := ReadReport(f)
		f.Close()
		require.NoError(t, err)
		require.True(t, rep.Quick, "%s is a quick report", committedQuick)
		for _, res := range rep.Results {
			committed[res.Figure.Name] = res.Outcome
		}
	}
	fresh := &Report{Quick: true}
	for _, f := range Figures() {
		if !f.Quick {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			start := time.Now()
			o, err := f.Run(Env{Platform: platform.Default(), Quick: true})
			require.NoError(t, err)
			t.Logf("%s: %s", f.Name, time.Since(start))
			require.NotEmpty(t, o.Findings, "a figure in the quick subset checks at least one finding")
			require.Equal(t, f.Tabled, o.Table != nil, "%s: a table of its runs as its figure declares", f.Name)
			for _, v := range o.Values {
				require.True(t, v.Within() || v.Why != "", "%s: %q is off the paper's and gives no reason", f.Name, v.What)
			}
			for _, x := range o.Findings {
				require.True(t, x.OK(), "%s: %s (%s); holds %v, known disagreement %q", x.Where, x.Claim, x.Measured, x.Holds, x.Known)
			}
			fresh.Results = append(fresh.Results, Result{Figure: f, Outcome: withoutPlots(o)})
			if *update {
				return
			}
			want, ok := committed[f.Name]
			require.True(t, ok, "%s is not in %s; rerun with -update", f.Name, committedQuick)
			require.JSONEq(t, rows(t, want), rows(t, o), "%s: the quick rows differ from %s; if the change is meant, rerun with -update and say in the commit which numbers moved and why", f.Name, committedQuick)
		})
	}
	quickFigs, err := selectFigures(true, nil)
	require.NoError(t, err)
	quick := len(quickFigs)
	if *update && !t.Failed() {
		// -update with -run naming some figures would write a quick
		// report of those alone.
		require.Len(t, fresh.Results, quick, "-update rewrites %s only when every quick figure runs: drop the figure from -run", committedQuick)
		var b bytes.Buffer
		require.NoError(t, fresh.WriteJSON(&b))
		require.NoError(t, os.WriteFile(committedQuick, b.Bytes(), 0o644))
	}
}
