package main

import (
	"fmt"
	"strconv"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/units"
)

// compareTable is the comparator's table of systems: narrow (the default
// table, within 100 columns: times in ms, abbreviated headers that
// compareLegend explains) or wide (--wide and CSV: every quantity in a
// column of its own, cycles beside ms, units in the headers). speedup is
// each system's time over ACE's, paper the paper's figures beside acemu's
// (nil for none): in the wide form columns of their own, in the narrow
// form the table paperTable draws.
func compareTable(systems []compare.SystemResult, speedup map[string]float64, paper map[string]compare.PaperRow, wide bool) (header []string, rows [][]string) {
	if wide {
		header = []string{"system", "compute cycles", "exposed cycles", "iteration cycles", "compute ms", "exposed ms", "iteration ms",
			"exposed %", "% of ideal", "ACE speedup over it ×", "network GB/s", "link util %", "peak link util %",
			"comm memory GB/s (read+write)", "mem read B/NPU", "mem write B/NPU", "comm SM busy %",
			"ACE util %", "ACE forward util %", "ACE backprop util %"}
		if paper != nil {
			header = append(header, "paper exposed %", "paper % of ideal", "paper ACE speedup over it ×")
		}
	} else {
		header = []string{"system", "compute ms", "exposed ms", "total ms", "exposed %", "% of ideal", "ACE ×",
			"link % mean/peak", "mem GB/s"}
	}
	for _, r := range systems {
		sp := "-"
		if v, ok := speedup[r.Name]; ok {
			sp = units.Ratio(v)
		}
		ofIdeal := pctOf(r.FractionOfIdeal)
		if !wide {
			if sp != "-" {
				sp += "×"
			}
			rows = append(rows, []string{r.Name, millis(r.ComputeCycles), millis(r.ExposedCommCycles), millis(r.IterationCycles),
				f1(100 * r.ExposedShare), ofIdeal, sp, f1(100*r.LinkUtilization) + "/" + f1(100*r.PeakLinkUtilization), f1(r.CommMemGBps)})
			continue
		}
		row := []string{r.Name, cycles(r.ComputeCycles), cycles(r.ExposedCommCycles), cycles(r.IterationCycles),
			millis(r.ComputeCycles), millis(r.ExposedCommCycles), millis(r.IterationCycles),
			f1(100 * r.ExposedShare), ofIdeal, sp, f1(r.NetworkGBps), f1(100 * r.LinkUtilization), f1(100 * r.PeakLinkUtilization),
			f1(r.CommMemGBps), strconv.FormatInt(r.MemReadPerNPU, 10), strconv.FormatInt(r.MemWritePerNPU, 10), f1(100 * r.CommSMBusy),
			pctOf(r.ACEUtilization), pctOf(r.ACEForwardUtilization), pctOf(r.ACEBackpropUtilization)}
		if paper != nil {
			ref := paper[r.Name]
			row = append(row, pctOr(ref.ExposedShare), pctOr(ref.FractionOfIdeal), ratioOr(ref.SpeedupOfACE))
		}
		rows = append(rows, row)
	}
	return header, rows
}

// paperTable is the narrow table's companion: acemu's exposed share, %
// of ideal and ACE's speed-up beside the paper's, per system ("–" where
// the paper gives none).
func paperTable(systems []compare.SystemResult, speedup map[string]float64, paper map[string]compare.PaperRow) *summary {
	s := &summary{header: []string{"system", "exposed % acemu", "exposed % paper", "% of ideal acemu", "% of ideal paper",
		"ACE × acemu", "ACE × paper"}}
	dash := func(v string) string {
		if v == "-" {
			return "–"
		}
		return v
	}
	for _, r := range systems {
		ref := paper[r.Name]
		ofIdeal, sp := pctOf(r.FractionOfIdeal), "-"
		if v, ok := speedup[r.Name]; ok {
			sp = units.Ratio(v) + "×"
		}
		paperSp := ratioOr(ref.SpeedupOfACE)
		if paperSp != "-" {
			paperSp += "×"
		}
		s.rows = append(s.rows, []string{r.Name, f1(100 * r.ExposedShare), dash(pctOr(ref.ExposedShare)), ofIdeal,
			dash(pctOr(ref.FractionOfIdeal)), sp, dash(paperSp)})
	}
	return s
}

// compareLegend explains the narrow table's abbreviated headers.
const compareLegend = "Per iteration, in ms at 1245 MHz (cycles: --wide, --format csv or json): compute, exposed communication (not hidden behind compute) and their total. " +
	"% of ideal: the ideal system's time over the system's; ACE ×: ACE's speed-up over the system (the system's time over ACE's); " +
	"link %: the links' utilisation, mean over the run / in the busiest 1000-cycle window; " +
	"mem GB/s: communication's memory traffic per NPU, read plus write, averaged over the whole run."

// aceByPass is the line that gives ACE's utilisation by pass (the ACE
// paper's Fig. 9(b) measure), "" when ACE did not run.
func aceByPass(systems []compare.SystemResult) string {
	for _, r := range systems {
		if r.ACEUtilization != nil && r.ACEForwardUtilization != nil && r.ACEBackpropUtilization != nil {
			return fmt.Sprintf("ACE's utilisation (the share of time it holds at least one chunk, as Fig. 9(b)): %s %% in the forward passes, %s %% in back-propagation, %s %% over the run.",
				f1(100**r.ACEForwardUtilization), f1(100**r.ACEBackpropUtilization), f1(100**r.ACEUtilization))
		}
	}
	return ""
}

// millis writes a number of cycles as ms at the NPU's clock, to the µs.
func millis(c float64) string {
	return strconv.FormatFloat(c/float64(npu.ClockHz)*1e3, 'f', 3, 64)
}

// cycles writes a number of cycles, whole.
func cycles(c float64) string { return strconv.FormatFloat(c, 'f', 0, 64) }

// pctOf writes a share in %, "-" for none.
func pctOf(v *float64) string {
	if v == nil {
		return "-"
	}
	return f1(100 * *v)
}

// pctOr writes a share in %, "-" for 0 (the paper gives none).
func pctOr(v float64) string {
	if v == 0 {
		return "-"
	}
	return f1(100 * v)
}

// ratioOr writes a ratio, "-" for 0 (the paper gives none).
func ratioOr(v float64) string {
	if v == 0 {
		return "-"
	}
	return units.Ratio(v)
}
