package validation

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/sweep"
)

// The tolerance rule (docs/validation.md, "Tolerance"), by hand: half a
// unit in the last printed digit; approximate values one unit in the last
// non-zero digit.
func TestPrintedTolerance(t *testing.T) {
	for _, tc := range []struct {
		text  string
		value float64
		tol   float64
	}{
		{"94.3", 94.3, 0.05},
		{"2.67", 2.67, 0.005},
		{"76", 76, 0.5},
		{"128", 128, 0.5},
		{"≈ 450", 450, 10},  // 45 tens: one ten
		{"≈ 3.5", 3.5, 0.1}, // 35 tenths: one tenth
		{"≈ 300", 300, 100}, // 3 hundreds: one hundred
		{"≈ 6", 6, 1},
		{"about 0.25", 0.25, 0.01},
		{"~ 1.20", 1.2, 0.1}, // the trailing zero is not significant
	} {
		p, err := parsePrinted(tc.text)
		require.NoError(t, err, tc.text)
		require.InDelta(t, tc.value, p.Value, 1e-12, tc.text)
		require.InDelta(t, tc.tol, p.Tolerance, 1e-12, tc.text)
	}
	for _, bad := range []string{"", "≈", "x", "1e3", "-2", "+2", "1.2.3", "inf", "Infinity", "NaN", "0x1p4", "1_0", ".5", "5."} {
		_, err := parsePrinted(bad)
		require.Error(t, err, bad)
		require.True(t, math.IsNaN(Printed(bad).Value), bad)
	}
}

func TestWithinAndRatio(t *testing.T) {
	v := Value{Paper: Printed("94.3"), Acemu: 94.34}
	require.True(t, v.Within())
	v.Acemu = 94.36
	require.False(t, v.Within())
	require.InDelta(t, 94.36/94.3, v.Ratio(), 1e-12)
	v.None = "not reached"
	require.False(t, v.Within())
	require.Zero(t, v.Ratio())
	// Approximate: one unit in the last non-zero digit.
	r := Value{Paper: Printed("≈ 0.9"), Acemu: 0.999}
	require.True(t, r.Within())
	r.Acemu = 1.001
	require.False(t, r.Within())
}

// Each figure has a unique name, its paper and place, and a run.
func TestEveryFigureIsNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Figures() {
		require.False(t, seen[f.Name], f.Name)
		seen[f.Name] = true
		require.NotEmpty(t, f.Source.Title, f.Name)
		require.NotEmpty(t, f.Where, f.Name)
		require.NotNil(t, f.Run, f.Name)
	}
	_, ok := Lookup("fig5")
	require.True(t, ok)
	_, ok = Lookup("fig7")
	require.False(t, ok)
}

// The report's rows: paper, acemu (one decimal more than the paper
// prints), the ratio, and within or by how much not, with the reason.
func TestMarkdownRows(t *testing.T) {
	rep := &Report{Results: []Result{{Figure: Figure{Name: "figX", Source: ACEPaper, Where: "Section Z", Title: "a test"}, Outcome: &Outcome{
		Values: []Value{
			{What: "a", Unit: "%", Paper: Printed("94.3"), Acemu: 90.12, Why: "a reason"},
			{What: "b", Unit: "×", Paper: Printed("≈ 3.5"), Acemu: 3.41},
			{What: "c", Unit: "GB/s", Paper: Printed("128"), None: "not reached"},
			{What: "d", Unit: "SMs", Paper: Printed("6"), Acemu: 8},
		},
		Findings: []Finding{{Claim: "it holds", Where: "Section Z", Holds: true, Measured: "m1"}, {Claim: "it breaks", Where: "Section Z", Measured: "m2"},
			{Claim: "it is known not to hold", Where: "Section Z", Measured: "m3", Known: "a reason"},
			{Claim: "it was known not to hold", Where: "Section Z", Holds: true, Measured: "m4", Known: "an old reason"}},
		Plots: []string{"figX.png", "figX.svg"},
	}}}}
	var b bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&b))
	s := b.String()
	// A whole number beside a whole number: 8 − 6 = 2, outside ± 0.5.
	require.Contains(t, s, "| d | 6 SMs | 8 SMs | 1.333 | no (± 0.5; off by 2.0 SMs) |")
	require.Contains(t, s, "1 of 4 values within the paper's tolerance; 2 of 4 findings hold (1 of the 2 that do not is a known disagreement, with its reason; of the other 1 the figure's analysis says what is known).")
	// 90.12 / 94.3 = 0.9557; off by 90.12 − 94.3 = −4.18.
	require.Contains(t, s, "| a | 94.3 % | 90.12 % | 0.956 | no (± 0.05; off by −4.18 %): a reason |")
	// 3.41 / 3.5 = 0.974; within ± 0.1.
	require.Contains(t, s, "| b | ≈ 3.5× | 3.41× | 0.974 | yes (± 0.1) |")
	require.Contains(t, s, "| c | 128 GB/s | – (not reached) | – | no |")
	require.Contains(t, s, "| it breaks (Section Z) | **no** | m2 |")
	require.Contains(t, s, "![figX](figX/figX.png)")
	require.NotContains(t, s, "figX.svg)")
	require.Contains(t, s, "| it is known not to hold (Section Z) | **no** (known: a reason) | m3 |")
	require.Equal(t, []string{"figX: it breaks (m2)", "figX: it was known not to hold now holds (m4); its known reason no longer applies: an old reason"}, rep.Broken())
}

// Every [choice] of docs/model-choices.md's platform table is swept by
// the choices' sweep or left out with a reason, and every key swept is a
// platform key.
func TestEveryChoiceIsSweptOrSaysWhyNot(t *testing.T) {
	b, err := os.ReadFile("../docs/model-choices.md")
	require.NoError(t, err)
	swept := map[string]bool{}
	for _, c := range Choices {
		swept[c.Key] = true
		p := platform.Default()
		for _, v := range c.Others {
			require.NoError(t, p.Set(c.Key, v), "%s=%s", c.Key, v)
		}
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, " | ")
		if len(f) < 4 || !strings.HasPrefix(f[0], "| `") || !strings.Contains(f[3], "[choice]") {
			continue
		}
		key := strings.Trim(strings.TrimPrefix(f[0], "| "), "`")
		n++
		why := notSwept(key) != ""
		require.True(t, swept[key] || why, "%s is a [choice] neither swept (validation.Choices) nor in NotSwept", key)
		require.False(t, swept[key] && why, "%s is both swept and not", key)
	}
	require.Greater(t, n, 15, "the platform table's [choice] rows were not found")
}

// A choice's run records the values that moved and the findings that
// turned, and says so beside the paper's value.
func TestChoiceRunRecordsWhatMoved(t *testing.T) {
	def := Result{Figure: Figure{Name: "figX"}, Outcome: &Outcome{
		Values:   []Value{{What: "a", Unit: "%", Paper: Printed("94.3"), Acemu: 90}, {What: "b", Paper: Printed("2"), Acemu: 2}},
		Findings: []Finding{{Claim: "c1", Holds: true, Measured: "m"}, {Claim: "c2", Holds: true}},
	}}
	other := &Outcome{
		Values:   []Value{{What: "a", Unit: "%", Paper: Printed("94.3"), Acemu: 93}, {What: "b", Paper: Printed("2"), Acemu: 2}},
		Findings: []Finding{{Claim: "c1", Holds: false, Measured: "n"}, {Claim: "c2", Holds: true}},
	}
	cr := ChoiceRun{Key: "ace.notice", Value: "fsm", Figures: []string{"figX"}}
	cr.compare(def, other)
	require.Equal(t, []MovedValue{{Figure: "figX", Value: def.Values[0], Other: other.Values[0]}}, cr.Moved)
	require.Equal(t, []FlippedFinding{{Figure: "figX", Claim: "c1", Default: true, Other: false, DefaultMeasured: "m", OtherMeasured: "n"}}, cr.Flipped)
	var b bytes.Buffer
	require.NoError(t, WriteChoices(&b, Choices, []ChoiceRun{cr, {Key: "ace.partition", Value: "paper"}}, true))
	// 93 / 90 = 1.0333.
	require.Contains(t, b.String(), "| figX | a | 94.3 % | 90.00 % | 93.00 % | 1.033 |")

	// A row one run lacks, or that lost its value, moved too.
	gone := ChoiceRun{}
	gone.compare(def, &Outcome{Values: []Value{{What: "b", Paper: Printed("2"), None: "not reached"}, {What: "e", Paper: Printed("1"), Acemu: 1}}})
	require.Len(t, gone.Moved, 3)
	require.Equal(t, "not in this run", gone.Moved[0].Other.None)
	require.Equal(t, "not reached", gone.Moved[1].Other.None)
	require.Equal(t, "not in the default run", gone.Moved[2].Value.None)
	require.Contains(t, b.String(), "| figX | c1 | yes (m) | **no** (n) |")
	// A default that prints as zero (0.02 to the paper's 6's one decimal
	// more: 0.0) or a negative value gives no ratio.
	var z bytes.Buffer
	tiny := Value{What: "g", Unit: "%", Paper: Printed("6"), Acemu: 0.02}
	require.NoError(t, WriteChoices(&z, Choices, []ChoiceRun{{Key: "ace.notice", Value: "fsm", Moved: []MovedValue{
		{Figure: "figX", Value: tiny, Other: Value{What: "g", Unit: "%", Paper: Printed("6"), Acemu: 2.9}},
		{Figure: "figY", Value: Value{What: "g", Unit: "%", Paper: Printed("6"), Acemu: 1}, Other: Value{What: "g", Unit: "%", Paper: Printed("6"), Acemu: -1.3}},
	}}}, true))
	require.Contains(t, z.String(), "| figX | g | 6 % | 0.0 % | 2.9 % | – |")
	require.Contains(t, z.String(), "| figY | g | 6 % | 1 % | -1.3 % | – |")
	require.Contains(t, b.String(), "## ace.partition = paper\n\n(The default: `little`; why, docs/ace-model.md; `--set ace.partition=paper`.) Figures run: none (no figure's runs take the key).\n\nNo row moved.")
	require.Contains(t, b.String(), "| `training.micro` | only a MICRO workload (a collective alone) runs by it; no figure of the report trains one |")
	// The page says whose runs they are: the quick subset's, or the
	// report's at full size.
	require.True(t, strings.HasPrefix(b.String(), "# The model's choices against the report, on the quick subset\n"))
	require.Contains(t, b.String(), "so their rows are the quick report's, not the report's, and the paper's column is the paper's value for its own setup; choices-full.md is the same at the report's size.")
	var full bytes.Buffer
	require.NoError(t, WriteChoices(&full, Choices, []ChoiceRun{cr}, false))
	require.True(t, strings.HasPrefix(full.String(), "# The model's choices against the report\n"))
	require.Contains(t, full.String(), "so the default's rows are docs/validation.md's.")
	require.NotContains(t, full.String(), "quick")
}

// The choices' sweep on one cheap figure: the paper's partition heuristic
// moves Fig. 5's ACE threshold (docs/validation.md: ACE under it stops at
// 84 % of ideal on 4x4x4), and a key Fig. 5 ignores runs nothing.
func TestRunChoicesOnFig5(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Fig. 5's quick subset three times")
	}
	saved := registry
	t.Cleanup(func() { registry = saved })
	registry = []Figure{aceFig5}
	base, runs, err := RunChoices(Env{Platform: platform.Default(), Quick: true}, []Choice{
		{"ace.partition", []string{"paper"}, "docs/ace-model.md"},
		{"baseline.launch", []string{"0"}, "docs/baseline-model.md"},
	}, nil)
	require.NoError(t, err)
	require.Len(t, base.Results, 1)
	require.Len(t, runs, 2)
	require.Equal(t, []string{"fig5"}, runs[0].Figures)
	require.NotEmpty(t, runs[0].Moved, "the paper's partitions move ACE's threshold")
	require.Empty(t, runs[1].Figures, "fig5 runs the baseline without its library's latencies")
	require.Empty(t, runs[1].Moved)
}

// A figure whose sweep refuses a key as changing nothing is listed as
// not run, and the choices' sweep goes on.
func TestRunChoicesSkipsARefusedKey(t *testing.T) {
	saved := registry
	t.Cleanup(func() { registry = saved })
	runs := 0
	registry = []Figure{{Name: "figX", Quick: true, Run: func(e Env) (*Outcome, error) {
		runs++
		if e.Platform.Library.LaunchCycles == 0 {
			return nil, fmt.Errorf("figX: baseline.launch is set, but no baseline runs: %w", sweep.ErrNoEffect)
		}
		return &Outcome{Values: []Value{{What: "a", Paper: Printed("1"), Acemu: 1}}}, nil
	}}}
	_, got, err := RunChoices(Env{Platform: platform.Default(), Quick: true}, []Choice{{"baseline.launch", []string{"0"}, "docs/baseline-model.md"}}, nil)
	require.NoError(t, err)
	require.Equal(t, 2, runs, "the default and the choice")
	require.Len(t, got, 1)
	require.Empty(t, got[0].Figures)
	require.Equal(t, []string{"figX"}, got[0].Refused)
	var b bytes.Buffer
	require.NoError(t, WriteChoices(&b, Choices, got, true))
	require.Contains(t, b.String(), "not run, as their systems, workloads or links do not read the key: figX")
}

// A figure that takes none of the choices' keys moves under none, so the
// base does not run it (BlueConnect's, half an hour at full size), and
// none is refused as a sweep with nothing to run.
func TestRunChoicesLeavesOutAFigureNoChoiceTakes(t *testing.T) {
	saved := registry
	t.Cleanup(func() { registry = saved })
	runs := map[string]int{}
	fig := func(name string, ignores ...string) Figure {
		return Figure{Name: name, Quick: true, Ignores: ignores, Run: func(e Env) (*Outcome, error) {
			runs[name]++
			return &Outcome{Values: []Value{{What: "a", Paper: Printed("1"), Acemu: 1}}}, nil
		}}
	}
	registry = []Figure{fig("figX", "baseline."), fig("figY", "ace.")}
	base, got, err := RunChoices(Env{Platform: platform.Default(), Quick: true}, []Choice{{"baseline.launch", []string{"0"}, "docs/baseline-model.md"}}, nil)
	require.NoError(t, err)
	require.Len(t, base.Results, 1)
	require.Equal(t, "figY", base.Results[0].Figure.Name)
	require.Equal(t, map[string]int{"figY": 2}, runs, "figY at the default and at the choice; figX never")
	require.Equal(t, []string{"figY"}, got[0].Figures)

	registry = []Figure{fig("figX", "baseline.")}
	_, _, err = RunChoices(Env{Platform: platform.Default(), Quick: true}, []Choice{{"baseline.launch", []string{"0"}, "docs/baseline-model.md"}}, nil)
	require.ErrorContains(t, err, "none of the figures takes")
}

// A time in µs is rounded once, half up, from the integer cycles at
// 1245 MHz: c cycles are c / 124.5 tenths of a µs.
func TestMicrosTextRoundsOnce(t *testing.T) {
	for _, c := range []struct {
		cycles int64
		want   string
	}{
		{0, "0.0"},
		{450628, "362.0"},             // 450628 / 124.5 = 3619.502 tenths (rounded to the ns first: 361.950 µs, printed "361.9")
		{894612, "718.6"},             // 7185.638 tenths
		{1245, "1.0"},                 // one µs exactly
		{249, "0.2"},                  // 2 tenths exactly
		{62, "0.0"},                   // 0.498 tenths
		{63, "0.1"},                   // 0.506 tenths
		{1245 * 1000000, "1000000.0"}, // a second
	} {
		require.Equal(t, c.want, microsText(c.cycles), "%d cycles", c.cycles)
	}
}

// --keys picks choices by key, in Choices' order, and refuses a key that
// is not swept, saying why.
func TestChoicesOf(t *testing.T) {
	all, err := ChoicesOf(nil)
	require.NoError(t, err)
	require.Equal(t, Choices, all)
	got, err := ChoicesOf([]string{"links.rx_buffer", "ace.partition"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "ace.partition", got[0].Key, "Choices' order, not the flag's")
	require.Equal(t, "links.rx_buffer", got[1].Key)
	_, err = ChoicesOf([]string{"ace.bogus"})
	require.ErrorContains(t, err, "ace.bogus is not one of the choices swept: ace.ports_per_bank, ")
	_, err = ChoicesOf([]string{"training.micro"})
	require.ErrorContains(t, err, "training.micro is not swept: only a MICRO workload")
}

// Runs made in parts merge in Choices' order, a later part's run in place
// of an earlier one's, and parts whose defaults differ (another build's
// simulation) are refused.
func TestMergeChoiceRuns(t *testing.T) {
	moved := func(def, other float64) []MovedValue {
		return []MovedValue{{Figure: "fig5", Value: Value{What: "w", Acemu: def}, Other: Value{What: "w", Acemu: other}}}
	}
	earlier := []ChoiceRun{
		{Key: "links.tx_buffer", Value: "16", Moved: moved(1, 2)},
		{Key: "ace.partition", Value: "paper", Moved: moved(1, 3)},
	}
	later := []ChoiceRun{{Key: "ace.partition", Value: "paper", Moved: moved(1, 4)}, {Key: "ace.ports_per_bank", Value: "literal"}}
	got, err := MergeChoiceRuns(earlier, later)
	require.NoError(t, err)
	var order []string
	for _, r := range got {
		order = append(order, r.Key+"="+r.Value)
	}
	require.Equal(t, []string{"ace.ports_per_bank=literal", "ace.partition=paper", "links.tx_buffer=16"}, order)
	require.Equal(t, 4.0, got[1].Moved[0].Other.Acemu, "the later run replaces the earlier")

	_, err = MergeChoiceRuns(earlier, []ChoiceRun{{Key: "ace.notice", Value: "fsm", Moved: moved(1.5, 2)}})
	require.ErrorContains(t, err, `fig5's "w" is 1.5 by default in one run and 1 in another: the runs are not of one build`)
	flip := func(key, value, m string) []ChoiceRun {
		return []ChoiceRun{{Key: key, Value: value, Flipped: []FlippedFinding{{Figure: "fig9a", Claim: "c", DefaultMeasured: m}}}}
	}
	_, err = MergeChoiceRuns(flip("ace.notice", "fsm", "a"), flip("ace.prefetch", "room", "b"))
	require.ErrorContains(t, err, `fig9a's finding "c" measures b by default in one run and a in another`)
	// A run replaced is not compared: a key run again by a new build
	// replaces the old build's runs of it.
	got, err = MergeChoiceRuns(flip("ace.notice", "fsm", "a"), flip("ace.notice", "fsm", "b"))
	require.NoError(t, err)
	require.Equal(t, "b", got[0].Flipped[0].DefaultMeasured)
	// Quick runs do not merge with full-size ones.
	_, err = MergeChoiceRuns([]ChoiceRun{{Key: "ace.notice", Value: "fsm", Quick: true}}, []ChoiceRun{{Key: "ace.prefetch", Value: "room"}})
	require.ErrorContains(t, err, "it holds quick runs and full-size ones (ace.notice=fsm is the quick subset's): merge each size into its own file")
}

// A page written from some of the choices' runs lists the rest and the
// command that runs and merges them.
func TestWriteChoicesListsTheRunsNotYetMade(t *testing.T) {
	var b bytes.Buffer
	runs := []ChoiceRun{{Key: "links.tx_buffer", Value: "16"}}
	require.NoError(t, WriteChoices(&b, []Choice{Choices[0], {"links.tx_buffer", []string{"16", "64"}, "docs/topology.md"}}, runs, false))
	require.Contains(t, b.String(), "## Not run yet\n\nThe sweep is run in parts (`--keys`), each merged into the runs this page is written from; not yet run: `ace.ports_per_bank=literal`, `links.tx_buffer=64`. `acemu reproduce choices --keys ace.ports_per_bank,links.tx_buffer --out DIR --into docs/validation/choices-full.json` runs them")
	b.Reset()
	require.NoError(t, WriteChoices(&b, []Choice{{"links.tx_buffer", []string{"16"}, "docs/topology.md"}}, runs, true))
	require.NotContains(t, b.String(), "Not run yet")
}

// The summary says how many findings fail, and of those how many with a
// known reason, in words that fit the counts.
func TestSummaryCountsFailingFindings(t *testing.T) {
	hold := Finding{Claim: "h", Holds: true}
	known := Finding{Claim: "k", Known: "why"}
	bare := Finding{Claim: "b"}
	for _, c := range []struct {
		findings []Finding
		want     string
	}{
		{[]Finding{hold}, "1 of 1 findings hold."},
		{[]Finding{hold, known}, "1 of 2 findings hold (the one that does not is a known disagreement, with its reason)."},
		{[]Finding{known, known}, "0 of 2 findings hold (each of the 2 that do not is a known disagreement, with its reason)."},
		{[]Finding{hold, bare, bare}, "1 of 3 findings hold (none of the 2 that do not has a reason in the report: the figures' analysis says what is known)."},
		{[]Finding{known, known, bare}, "0 of 3 findings hold (2 of the 3 that do not are known disagreements, each with its reason; of the other 1 the figure's analysis says what is known)."},
	} {
		rep := &Report{Results: []Result{{Figure: Figure{Name: "figX"}, Outcome: &Outcome{Findings: c.findings}}}}
		require.Equal(t, "0 of 0 values within the paper's tolerance; "+c.want, rep.summary())
	}
}

// A figure a system of which refuses a choice's value (LIBRA with no
// contention to plan) is recorded as not run, with the refusal, and the
// sweep goes on.
func TestRunChoicesRecordsARefusedFigure(t *testing.T) {
	saved := registry
	t.Cleanup(func() { registry = saved })
	registry = []Figure{{Name: "figX", Quick: true, Run: func(e Env) (*Outcome, error) {
		if e.Platform.MessageBytes != platform.Default().MessageBytes {
			return nil, fmt.Errorf("figX: LIBRA refuses: %w", compare.ErrRefused)
		}
		return &Outcome{Values: []Value{{What: "a", Paper: Printed("1"), Acemu: 1}}}, nil
	}}}
	_, got, err := RunChoices(Env{Platform: platform.Default(), Quick: true}, []Choice{{"afi.message", []string{"4KiB"}, "docs/model-choices.md"}}, nil)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Empty(t, got[0].Figures)
	require.Equal(t, []FigureRefusal{{Figure: "figX", Why: "figX: LIBRA refuses: a system refuses the setup"}}, got[0].NotRun)
	var b bytes.Buffer
	require.NoError(t, WriteChoices(&b, Choices, got, true))
	require.Contains(t, b.String(), "; not run, as a system it runs refuses this value: figX (figX: LIBRA refuses")
}
