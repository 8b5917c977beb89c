package compare

// PaperRow is what the ACE paper reports for one system in one of its
// Fig. 10 runs (4x8x4, two iterations, LIFO; Section VI-B): zero where the
// paper gives no number.
type PaperRow struct {
	// FractionOfIdeal is the system's performance as a fraction of the
	// ideal system's (the paper's 94.3 % is 0.943).
	FractionOfIdeal float64 `json:"fraction_of_ideal,omitempty"`
	// SpeedupOfACE is the system's iteration time over ACE's.
	SpeedupOfACE float64 `json:"speedup_of_ace,omitempty"`
	// ExposedShare is exposed communication as a fraction of the
	// iteration (the paper's 31.5 % is 0.315).
	ExposedShare float64 `json:"exposed_comm_share,omitempty"`
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
		"baseline-commopt": {FractionOfIdeal: 0.353, SpeedupOfACE: 2.67, ExposedShare: 0.315},
		"baseline-compopt": {FractionOfIdeal: 0.373, SpeedupOfACE: 2.52},
		"ace":              {FractionOfIdeal: 0.943, ExposedShare: 0.02},
		"ideal":            {FractionOfIdeal: 1},
	},
	// "ACE can outperform both BaselineCommOpt and BaselineCompOpt by
	// 1.59× and 1.17× … 88.7% of the ideal system, compared to … 55.9%
	// and 76%".
	"gnmt": {
		"baseline-commopt": {FractionOfIdeal: 0.559, SpeedupOfACE: 1.59},
		"baseline-compopt": {FractionOfIdeal: 0.76, SpeedupOfACE: 1.17},
		"ace":              {FractionOfIdeal: 0.887},
		"ideal":            {FractionOfIdeal: 1},
	},
	// "ACE iteration time is shorter by 1.55× and 1.19× … 55.6%, 72.8%,
	// and 86.5%".
	"dlrm": {
		"baseline-commopt": {FractionOfIdeal: 0.556, SpeedupOfACE: 1.55},
		"baseline-compopt": {FractionOfIdeal: 0.728, SpeedupOfACE: 1.19},
		"ace":              {FractionOfIdeal: 0.865},
		"ideal":            {FractionOfIdeal: 1},
	},
}

// PaperFig10 returns the paper's figures for a built-in workload's
// systems on PaperTopology, and whether it has any.
func PaperFig10(workload string) (map[string]PaperRow, bool) {
	r, ok := paperFig10[workload]
	return r, ok
}
