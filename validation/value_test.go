package validation

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tolerance rule (docs/validation.md, "Tolerance"), by hand: half a
// unit in the last printed digit; approximate values one unit in the last
// non-zero digit.
func TestPrintedTolerance(t *testing.T) {
	for _, tc := range []struct {
		text   string
		value  float64
		tol    float64
		approx bool
	}{
		{"94.3", 94.3, 0.05, false},
		{"2.67", 2.67, 0.005, false},
		{"76", 76, 0.5, false},
		{"128", 128, 0.5, false},
		{"≈ 450", 450, 10, true},  // 45 tens: one ten
		{"≈ 3.5", 3.5, 0.1, true}, // 35 tenths: one tenth
		{"≈ 300", 300, 100, true}, // 3 hundreds: one hundred
		{"≈ 6", 6, 1, true},
		{"about 0.25", 0.25, 0.01, true},
		{"~ 1.20", 1.2, 0.1, true}, // the trailing zero is not significant
	} {
		p, err := parsePrinted(tc.text)
		require.NoError(t, err, tc.text)
		require.InDelta(t, tc.value, p.Value, 1e-12, tc.text)
		require.InDelta(t, tc.tol, p.Tolerance, 1e-12, tc.text)
		require.Equal(t, tc.approx, p.Approx, tc.text)
	}
	for _, bad := range []string{"", "≈", "x", "1e3", "-2", "+2", "1.2.3"} {
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
	// Read off a figure: half its grid step.
	r := Value{Paper: Read(0.9, 0.1), Acemu: 0.949}
	require.True(t, r.Within())
	r.Acemu = 0.951
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
		},
		Findings: []Finding{{Claim: "it holds", Where: "Section Z", Holds: true, Measured: "m1"}, {Claim: "it breaks", Where: "Section Z", Measured: "m2"}},
		Plots:    []string{"figX.png", "figX.svg"},
	}}}}
	var b bytes.Buffer
	require.NoError(t, rep.WriteMarkdown(&b))
	s := b.String()
	require.Contains(t, s, "1 of 3 values within the paper's tolerance; 1 of 2 findings hold.")
	// 90.12 / 94.3 = 0.9557; off by 90.12 − 94.3 = −4.18.
	require.Contains(t, s, "| a | 94.3 % | 90.12 % | 0.956 | no (± 0.05; off by −4.18 %): a reason |")
	// 3.41 / 3.5 = 0.974; within ± 0.1.
	require.Contains(t, s, "| b | ≈ 3.5× | 3.41× | 0.974 | yes (± 0.1) |")
	require.Contains(t, s, "| c | 128 GB/s | – (not reached) | – | no |")
	require.Contains(t, s, "| it breaks (Section Z) | **no** | m2 |")
	require.Contains(t, s, "![figX](figX/figX.png)")
	require.NotContains(t, s, "figX.svg)")
	require.Equal(t, []string{"figX: it breaks (m2)"}, rep.Broken())
}
