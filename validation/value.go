// Package validation is acemu's validation report: a registry of the
// papers' figures and experiments, each declaring its runs, what it
// measures, the papers' values beside acemu's, and the findings the
// papers draw from them; and the report (Markdown) that sets every row of
// paper, acemu, ratio and whether acemu is within what the paper's own
// precision allows (docs/validation.md, "How to read the report").
package validation

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Paper is the value a paper gives, as it prints it, and how precisely.
type Paper struct {
	// Text is the value as the paper prints it: "94.3", "≈ 450", "2.67".
	Text string `json:"text"`
	// Value is Text's number.
	Value float64 `json:"value"`
	// Tolerance is how far a value may lie from Value and still be the
	// paper's (Within): the rule of docs/validation.md, "Tolerance".
	Tolerance float64 `json:"tolerance"`
}

// Printed is a value a paper prints as text: "94.3" or, approximate,
// "≈ 450" ("~", "about" also). Its tolerance is half a unit in its last
// printed digit, or one unit in its last non-zero digit when the paper
// calls it approximate (docs/validation.md, "Tolerance"). A malformed
// text gives a Value of NaN, which Run refuses naming the figure.
func Printed(text string) Paper {
	p, err := parsePrinted(text)
	if err != nil {
		return Paper{Text: text, Value: math.NaN()}
	}
	return p
}

// decimal is a number as the papers print one: digits, a point and
// digits.
var decimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// parsePrinted is Printed returning its error.
func parsePrinted(text string) (Paper, error) {
	s := strings.TrimSpace(text)
	approx := false
	for _, q := range []string{"≈", "~", "about "} {
		if rest, ok := strings.CutPrefix(s, q); ok {
			s, approx = strings.TrimSpace(rest), true
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !decimal.MatchString(s) {
		return Paper{}, fmt.Errorf("paper value %q: want a non-negative decimal such as 94.3 or ≈ 450", text)
	}
	unit := math.Pow10(-decimalsOf(s))
	tol := unit / 2
	if approx {
		// One unit in the last non-zero digit: ≈ 450 → 10, ≈ 3.5 → 0.1,
		// ≈ 300 → 100, ≈ 6 → 1.
		digits := strings.TrimRight(strings.ReplaceAll(s, ".", ""), "0")
		zeros := len(strings.ReplaceAll(s, ".", "")) - len(digits)
		if digits == "" { // ≈ 0: one unit of the last digit printed
			zeros = 0
		}
		tol = unit * math.Pow10(zeros)
	}
	return Paper{Text: text, Value: v, Tolerance: tol}, nil
}

// Value is one quantity of a figure: the paper's value beside acemu's.
type Value struct {
	// What the quantity is: "ACE, % of ideal, ResNet-50 on 4x8x4".
	What string `json:"what"`
	// Unit is what both values are in: "%", "×", "GB/s", "SMs".
	Unit string `json:"unit,omitempty"`
	// Where is the paper's place for it: "Section VI-B".
	Where string `json:"where"`
	// Paper is the paper's value; Acemu acemu's, in the same unit.
	Paper Paper   `json:"paper"`
	Acemu float64 `json:"acemu"`
	// None, if set, says why acemu has no value (Acemu is then
	// meaningless): "not reached within the sweep".
	None string `json:"none,omitempty"`
	// Why is, where acemu is not within the paper's tolerance, the reason
	// known for the gap (docs/validation.md's section, briefly).
	Why string `json:"why,omitempty"`
}

// atReportSize is why, the reason for a gap found at the report's sizes,
// for a run at them; for the quick subset's (quick) it says only that the
// reasons are traced at the report's sizes, in section of
// docs/validation.md.
func atReportSize(quick bool, section, why string) string {
	if quick {
		return "the quick subset's rows: reasons are traced at the report's sizes (docs/validation.md, \"" + section + "\")"
	}
	return why
}

// Within is whether acemu's value lies within the paper's tolerance.
func (v Value) Within() bool {
	return v.None == "" && math.Abs(v.Acemu-v.Paper.Value) <= v.Paper.Tolerance+1e-12
}

// Ratio is acemu's value over the paper's (0 when either has none).
func (v Value) Ratio() float64 {
	if v.None != "" || v.Paper.Value == 0 {
		return 0
	}
	return v.Acemu / v.Paper.Value
}

// Finding is a claim a paper draws from its figure, checked on acemu's
// runs: the qualitative result a reader takes away (an ordering, a
// threshold reached earlier, returns that diminish).
type Finding struct {
	// Claim is the paper's claim, as a sentence.
	Claim string `json:"claim"`
	// Where is the paper's place for it.
	Where string `json:"where"`
	// Holds is whether acemu's runs bear it out; Measured says what they
	// gave.
	Holds    bool   `json:"holds"`
	Measured string `json:"measured"`
	// Known, if set, is why acemu does not bear the claim out: a known
	// disagreement with the paper, explained (briefly, with the
	// docs/validation.md section). The report shows it not holding; a
	// known finding that holds is as wrong as an unknown one that does
	// not (its explanation no longer applies).
	Known string `json:"known,omitempty"`
}

// OK is whether the finding is as the report expects: holding, or not
// holding for its known reason.
func (f Finding) OK() bool { return f.Holds == (f.Known == "") }
