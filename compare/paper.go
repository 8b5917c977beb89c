package compare

// PaperRow is what the ACE paper reports for one system in one of its
// Fig. 10 runs (4x8x4, two iterations, LIFO; Section VI-B): zero where the
// paper gives no number.
type PaperRow struct {
	// PctOfIdeal is the system's performance as a share of the ideal
	// system's, in %.
	PctOfIdeal float64 `json:"pct_of_ideal,omitempty"`
	// SpeedupOfACE is the system's iteration time over ACE's.
	SpeedupOfACE float64 `json:"speedup_of_ace,omitempty"`
	// ExposedPct is exposed communication as a share of the iteration, in
	// %.
	ExposedPct float64 `json:"exposed_pct,omitempty"`
}

// PaperTopology is the torus of the paper's Fig. 10.
const PaperTopology = "4x8x4"

// paperFig10 is Section VI-B's text, by workload and system.
var paperFig10 = map[string]map[string]PaperRow{
	// "Thus, exposed communication still consists of 31.5% of iteration
	// time" (CommOpt); "exposed communication is only 2% of the iteration
	// time" (ACE); "ACE outperforms BaselineCommOpt and BaselineCommOpt
	// [sic: CompOpt] by 2.67× and 2.52×"; "94.3% of ideal … 35.3% and
	// 37.3%".
	"resnet50": {
		"baseline-commopt": {PctOfIdeal: 35.3, SpeedupOfACE: 2.67, ExposedPct: 31.5},
		"baseline-compopt": {PctOfIdeal: 37.3, SpeedupOfACE: 2.52},
		"ace":              {PctOfIdeal: 94.3, ExposedPct: 2},
		"ideal":            {PctOfIdeal: 100},
	},
	// "ACE can outperform both BaselineCommOpt and BaselineCompOpt by
	// 1.59× and 1.17× … 88.7% of the ideal system, compared to … 55.9%
	// and 76%".
	"gnmt": {
		"baseline-commopt": {PctOfIdeal: 55.9, SpeedupOfACE: 1.59},
		"baseline-compopt": {PctOfIdeal: 76, SpeedupOfACE: 1.17},
		"ace":              {PctOfIdeal: 88.7},
		"ideal":            {PctOfIdeal: 100},
	},
	// "ACE iteration time is shorter by 1.55× and 1.19× … 55.6%, 72.8%,
	// and 86.5%".
	"dlrm": {
		"baseline-commopt": {PctOfIdeal: 55.6, SpeedupOfACE: 1.55},
		"baseline-compopt": {PctOfIdeal: 72.8, SpeedupOfACE: 1.19},
		"ace":              {PctOfIdeal: 86.5},
		"ideal":            {PctOfIdeal: 100},
	},
}

// PaperFig10 returns the paper's figures for a built-in workload's
// systems on PaperTopology, and whether it has any.
func PaperFig10(workload string) (map[string]PaperRow, bool) {
	r, ok := paperFig10[workload]
	return r, ok
}
