package validation

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// update rewrites docs/validation.md from the committed report and the
// analysis (go test ./validation -run TestCommittedDocsAreTheReport
// -update), after an edit of the analysis alone.
var update = flag.Bool("update", false, "rewrite docs/validation.md from docs/validation/report.json and the analysis")

// The committed docs/validation.md, docs/validation/report.json and
// docs/validation/plots: what `acemu reproduce all --out DIR --docs
// docs/validation.md` writes.
const (
	committedDocs     = "../docs/validation.md"
	committedAnalysis = "../docs/validation"
)

func committedReport(t *testing.T) *Report {
	t.Helper()
	f, err := os.Open(filepath.Join(committedAnalysis, "report.json"))
	require.NoError(t, err)
	defer f.Close()
	rep, err := ReadReport(f)
	require.NoError(t, err)
	return rep
}

// docs/validation.md is the committed report joined with the analysis:
// an edit of the generated page, or of an analysis file without
// regenerating the page, fails here.
func TestCommittedDocsAreTheReport(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, committedReport(t).WriteDocs(&b, os.DirFS(committedAnalysis), "validation/plots"))
	if *update {
		require.NoError(t, os.WriteFile(committedDocs, b.Bytes(), 0o644))
	}
	want, err := os.ReadFile(committedDocs)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String(), "docs/validation.md is not the committed report joined with docs/validation/*.md: regenerate it (acemu reproduce all --out DIR --docs docs/validation.md; after an edit of the analysis alone, go test ./validation -run TestCommittedDocsAreTheReport -update)")
	// Every plot the page shows is committed.
	for _, res := range committedReport(t).Results {
		for _, p := range res.Plots {
			if filepath.Ext(p) == ".svg" {
				_, err := os.Stat(filepath.Join(committedAnalysis, "plots", res.Figure.Name, p))
				require.NoError(t, err)
			}
		}
	}
}

// Every figure of the committed report is as this build declares it: its
// paper, place and title, and a table of its runs and plots as its
// declaration says (Figure.Tabled, Figure.Draws), which `acemu
// reproduce NAME --format csv` and `--plot` go by; the quick run, which
// draws nothing, is held to Tabled in TestQuickFindingsHold.
func TestCommittedReportIsAsDeclared(t *testing.T) {
	rep := committedReport(t)
	require.Len(t, rep.Results, len(Figures()), "one result per figure")
	for _, res := range rep.Results {
		fig, ok := Lookup(res.Figure.Name)
		require.True(t, ok, res.Figure.Name)
		require.Equal(t, fig.Source, res.Figure.Source, "%s: the report's paper is not the figure's; regenerate docs/validation.md (acemu reproduce all --out DIR --only NAME rewrites the declarations without running the others)", fig.Name)
		require.Equal(t, fig.Where, res.Figure.Where, "%s: the report's place in the paper is not the figure's; regenerate docs/validation.md", fig.Name)
		require.Equal(t, fig.Title, res.Figure.Title, "%s: the report's title is not the figure's; regenerate docs/validation.md", fig.Name)
		require.Equal(t, fig.Tabled, res.Outcome.Table != nil, "%s: a table of its runs as its figure declares", fig.Name)
		for _, v := range res.Outcome.Values {
			// The report says why wherever acemu is off the paper's.
			require.True(t, v.Within() || v.Why != "", "%s: %q is off the paper's and gives no reason (Value.Why: the analysis's, or \"not traced\")", fig.Name, v.What)
		}
		require.Equal(t, fig.Draws, len(res.Outcome.Plots) > 0, "%s: plots as its figure declares", fig.Name)
	}
}

// The figures whose quick subset is their full setup (Figure.Same) have
// the same rows in the committed quick report (which
// TestQuickFindingsHold holds to a run now) as in the committed report:
// a changed number fails here until the report is regenerated.
func TestCommittedReportHasTheQuickRows(t *testing.T) {
	rep := committedReport(t)
	f, err := os.Open(committedQuick)
	require.NoError(t, err)
	defer f.Close()
	quick, err := ReadReport(f)
	require.NoError(t, err)
	for _, fig := range Figures() {
		if !fig.Same {
			continue
		}
		var full, small *Outcome
		for _, res := range rep.Results {
			if res.Figure.Name == fig.Name {
				full = res.Outcome
			}
		}
		for _, res := range quick.Results {
			if res.Figure.Name == fig.Name {
				small = res.Outcome
			}
		}
		require.NotNil(t, full, "%s is not in the committed report", fig.Name)
		require.NotNil(t, small, "%s is not in %s", fig.Name, committedQuick)
		require.JSONEq(t, rows(t, full), rows(t, small), "%s: the committed report's rows differ from the quick run's; regenerate docs/validation.md", fig.Name)
	}
}

// WriteDocs joins the analysis with every registered figure's section and
// refuses a report or analysis that does not cover them.
func TestWriteDocsNeedsEveryFigureAndItsAnalysis(t *testing.T) {
	files := fstest.MapFS{IntroFile: {Data: []byte("# Intro\n")}, MoreFile: {Data: []byte("## More\n")}}
	rep := &Report{}
	for _, f := range Figures() {
		files[f.Name+".md"] = &fstest.MapFile{Data: []byte("analysis of " + f.Name + "\n")}
		rep.Results = append(rep.Results, Result{Figure: f, Outcome: &Outcome{Plots: []string{f.Name + ".png", f.Name + ".svg"}}})
	}
	var b bytes.Buffer
	require.NoError(t, rep.WriteDocs(&b, files, "validation/plots"))
	s := b.String()
	require.Contains(t, s, DocsHeader+"\n# Intro\n")
	require.Contains(t, s, "\n## fig5: "+aceFig5.Title+"\n")
	require.Contains(t, s, "![fig5](validation/plots/fig5/fig5.svg)\n\nanalysis of fig5\n")
	require.NotContains(t, s, "fig5.png")
	require.Contains(t, s, "\n## More\n")

	delete(files, "fig6.md")
	require.ErrorContains(t, rep.WriteDocs(&b, files, "p"), "fig6's analysis")
	files["fig6.md"] = &fstest.MapFile{Data: []byte("x\n")}
	files["fig7.md"] = &fstest.MapFile{Data: []byte("x\n")}
	require.ErrorContains(t, rep.WriteDocs(&b, files, "p"), "analysis fig7.md names no figure")
	delete(files, "fig7.md")
	short := &Report{Results: rep.Results[1:]}
	require.ErrorContains(t, short.WriteDocs(&b, files, "p"), "the report has no "+registry[0].Name)
	rep.Quick = true
	require.ErrorContains(t, rep.WriteDocs(&b, files, "p"), "without --quick")

	// The report reads back as written.
	rep.Quick = false
	var j bytes.Buffer
	require.NoError(t, rep.WriteJSON(&j))
	back, err := ReadReport(&j)
	require.NoError(t, err)
	require.Equal(t, len(rep.Results), len(back.Results))
	require.Equal(t, rep.Results[0].Figure.Name, back.Results[0].Figure.Name)
}

// committedChoices are the choices' sweep's runs as committed (`acemu
// reproduce choices [--quick] --out DIR`'s choices.json, copied) and the
// pages written from them: the quick subset's and the report's at full
// size.
var committedChoices = []struct {
	runs, page string
	quick      bool
}{
	{filepath.Join(committedAnalysis, ChoicesRuns), filepath.Join(committedAnalysis, ChoicesFile), true},
	{filepath.Join(committedAnalysis, ChoicesFullRuns), filepath.Join(committedAnalysis, ChoicesFullFile), false},
}

// docs/validation/choices.md and choices-full.md are what WriteChoices
// makes of the committed runs, and those runs are every choice's every
// other value: a choice added to Choices fails here until the sweeps are
// run again (go test ./validation -run TestCommittedChoices -update
// rewrites the pages from the runs after an edit of WriteChoices alone).
func TestCommittedChoices(t *testing.T) {
	var want []string
	for _, c := range Choices {
		for _, v := range c.Others {
			want = append(want, c.Key+"="+v)
		}
	}
	for _, c := range committedChoices {
		t.Run(filepath.Base(c.page), func(t *testing.T) {
			b, err := os.ReadFile(c.runs)
			require.NoError(t, err)
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			var runs []ChoiceRun
			require.NoError(t, dec.Decode(&runs))
			var got []string
			for _, r := range runs {
				got = append(got, r.Key+"="+r.Value)
				require.Equal(t, c.quick, r.Quick, "%s: %s=%s is %s", c.runs, r.Key, r.Value, sizeName(r.Quick))
			}
			flag := ""
			if c.quick {
				flag = " --quick"
			}
			if c.quick {
				require.Equal(t, want, got, "%s is not a sweep of validation.Choices; run acemu reproduce choices%s --out DIR and copy DIR/choices.json", c.runs, flag)
			} else {
				// Run in parts (--keys … --into), it may lack some, which
				// the page lists; those it has are Choices' in order.
				require.NotEmpty(t, got)
				var in []string
				for _, w := range want {
					if slices.Contains(got, w) {
						in = append(in, w)
					}
				}
				require.Equal(t, in, got, "%s holds runs that are not validation.Choices', or out of order; run acemu reproduce choices --keys KEYS --out DIR --into %s", c.runs, c.runs)
			}
			var page bytes.Buffer
			require.NoError(t, WriteChoices(&page, Choices, runs, c.quick))
			if *update {
				require.NoError(t, os.WriteFile(c.page, page.Bytes(), 0o644))
			}
			committed, err := os.ReadFile(c.page)
			require.NoError(t, err)
			require.Equal(t, page.String(), string(committed), "%s is not WriteChoices of %s; go test ./validation -run TestCommittedChoices -update", c.page, c.runs)
		})
	}
}

// A figure's section holds its runs' table, summary and notes (a cell's
// "|" escaped), and report.json keeps them, but not what only the
// command reads (Keys, Doc).
func TestSectionHoldsTheRunsTable(t *testing.T) {
	tab := &Table{
		Header:  []string{"topology", "a|b"},
		Rows:    [][]string{{"4x4x4", "1.0"}, {"4x2x2", "2.0"}},
		Summary: &Grid{Header: []string{"threshold"}, Rows: [][]string{{"128"}}},
		Notes:   []string{"64 MiB per NPU"},
		Keys:    2,
		Doc:     []int{1},
	}
	res := Result{Figure: aceFig5, Outcome: &Outcome{Table: tab}}
	var b strings.Builder
	res.writeSection(&b, "", ".png")
	require.Contains(t, b.String(), "\nThe runs behind these rows:\n\n"+
		"| topology | a\\|b |\n|---|---|\n| 4x4x4 | 1.0 |\n| 4x2x2 | 2.0 |\n\n"+
		"| threshold |\n|---|\n| 128 |\n\n64 MiB per NPU\n")

	var j bytes.Buffer
	require.NoError(t, (&Report{Results: []Result{res}}).WriteJSON(&j))
	back, err := ReadReport(&j)
	require.NoError(t, err)
	got := back.Results[0].Table
	require.NotNil(t, got)
	require.Equal(t, tab.Header, got.Header)
	require.Equal(t, tab.Rows, got.Rows)
	require.Equal(t, tab.Summary, got.Summary)
	require.Equal(t, tab.Notes, got.Notes)
	require.Zero(t, got.Keys)
	require.Nil(t, got.Doc)
}
