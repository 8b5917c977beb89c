package validation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/units"
)

// aceFig11 is the ACE paper's Fig. 11 (Section VI-C): the five systems
// training each workload on every torus size, and the averages the
// section draws from them.
var aceFig11 = Figure{
	Name: "fig11", Source: ACEPaper, Where: "Section VI-C, Fig. 11",
	Title:  "the five systems on every system size, and their averages",
	Quick:  true,
	Flags:  []string{FlagTopos, FlagWorkloads},
	Tabled: true,
	Draws:  true,
	Run:    runACEFig11,
}

func runACEFig11(e Env) (*Outcome, error) {
	topos := reproduce.DefaultFig11().Topos
	if e.Quick {
		topos = append([]string{"4x2x1"}, quickTopos...)
	}
	var res *reproduce.Fig11Result
	var err error
	if e.inReport() {
		res, err = fig11Of(e, topos)
	} else {
		// Run by name: a sweep of its own over every size.
		o := reproduce.DefaultFig11()
		o.Trained = trained(e, o.Trained)
		o.Topos = orList(e.opts().Topos, topos)
		res, err = reproduce.Fig11(o)
	}
	if err != nil {
		return nil, err
	}
	out := &Outcome{Table: fig11Table(e, res)}
	if out.Plots, err = drawInto(e, func(dir string) ([]string, error) { return plots.Fig11(res, dir) }); err != nil {
		return nil, err
	}
	const where = "Section VI-C"
	const sec = " (docs/validation.md, \"Scaling: Fig. 11\")"
	// The reasons below were found at the report's four sizes; the quick
	// subset's two small tori get none.
	reason := func(why string) string {
		return atReportSize(e.Quick, "Scaling: Fig. 11", why)
	}
	for _, v := range res.FractionOfIdeal {
		why := "not traced" + sec
		switch v.What {
		case "baseline-commopt":
			why = "CommOpt hides most of its communication on ResNet-50 and GNMT, for the reason the main job's section gives" + sec
		case "ace":
			why = "GNMT, on the roofline at batch 128, leaves every system within 5.5 % of the ideal; without it ACE's mean is 89.5 %" + sec
		}
		out.Values = append(out.Values, Value{What: "% of ideal, " + v.What + ", mean over sizes and workloads", Unit: "%", Where: where,
			Paper: Printed(percentText(v.Paper)), Acemu: 100 * v.Acemu, Why: reason(why)})
	}
	for _, v := range res.OverBest {
		why := "not traced" + sec
		switch {
		case strings.HasPrefix(v.What, "gnmt"):
			why = "GNMT on the roofline at batch 128 computes far longer than it communicates, so ACE gains nothing over CommOpt" + sec
		case strings.HasPrefix(v.What, "dlrm"):
			why = "DLRM's compute (53 µs an iteration) is shorter than one all-reduce's library latencies on 4x8x4, so every baseline exposes much of its run" + sec
		case v.What == "resnet50 max":
			why = "acemu's lead peaks at 64 NPUs and falls at 128, where ACE's exposed communication grows, where the paper's gap grows with size" + sec
		}
		out.Values = append(out.Values, Value{What: "ACE's speed-up over the best baseline, " + v.What + " over sizes", Unit: "×", Where: where,
			Paper: Printed(fmt.Sprintf("%.2f", v.Paper)), Acemu: v.Acemu, Why: reason(why)})
	}
	for _, v := range res.Bandwidth {
		if v.Paper != 0 { // the measured ratios have no paper value
			why := "not traced" + sec
			if v.What == "max" {
				why = "acemu's maximum is DLRM's speed-up over NoOverlap on 4x8x4, the paper's ResNet-50's over CommOpt" + sec
			}
			out.Values = append(out.Values, Value{What: "ACE's effective network bandwidth over every baseline's, " + v.What, Unit: "×", Where: where,
				Paper: Printed(fmt.Sprintf("%.2f", v.Paper)), Acemu: v.Acemu, Why: reason(why)})
		}
	}
	// "ACE achieves … of the ideal system performance" above every
	// baseline, at every size.
	for _, r := range res.Rows {
		out.Findings = append(out.Findings, Finding{Claim: fmt.Sprintf("ACE trains faster than the best baseline (%s on %s)", r.Workload, r.Topo),
			Where: where, Holds: r.OverBest > 1, Measured: fmt.Sprintf("%.3f× over %s", r.OverBest, r.Best)})
	}
	return out, nil
}

// fig11Table is the study's table, a row per workload and size, and the
// section's averages beside the paper's.
func fig11Table(e Env, res *reproduce.Fig11Result) *Table {
	t := &Table{Doc: res, Keys: 2, Header: []string{"workload", "topology", "NPUs", "NoOverlap % of ideal", "CommOpt %", "CompOpt %", "ACE %", "best baseline", "ACE over best"}}
	for _, row := range res.Rows {
		if !slices.Contains(t.Workloads, row.Workload) {
			t.Workloads = append(t.Workloads, row.Workload)
		}
		cells := []string{row.Workload, row.Topo, fmt.Sprint(row.NPUs)}
		for _, s := range append(slices.Clone(reproduce.Fig11Baselines), "ace") {
			cells = append(cells, f1(100*row.System(s).FractionOfIdeal))
		}
		t.Rows = append(t.Rows, append(cells, row.Best, x2(row.OverBest)))
	}
	sum := &Grid{Header: []string{"average (Section VI-C)", "acemu", "paper", "difference"}}
	for _, v := range res.FractionOfIdeal {
		sum.Rows = append(sum.Rows, []string{"% of ideal, " + v.What + " (mean over sizes and workloads)", f1(100 * v.Acemu), f1(100 * v.Paper), signed(100*(v.Acemu-v.Paper), 1)})
	}
	for _, v := range res.OverBest {
		sum.Rows = append(sum.Rows, versusRow("ACE over the best baseline, "+v.What+" over sizes", v))
	}
	for _, v := range res.Bandwidth {
		sum.Rows = append(sum.Rows, versusRow("ACE's effective network bandwidth over every baseline, "+v.What, v))
	}
	t.Summary = sum
	t.Notes = append(t.Notes, fmt.Sprintf("%s, memory policy %s; %% of ideal = ideal's time over the system's; the bandwidth's mean and max are over every baseline, size and workload (Fig. 11(b)'s points) of the baseline's time over ACE's, as the paper takes them; measured: of ACE's bytes per second over the baseline's. docs/validation.md, \"Scaling: Fig. 11\"",
		units.Count(e.Platform.Iterations, "iteration"), e.Platform.Memory))
	return t
}

// versusRow is a ratio beside the paper's, with their difference ("–"
// where the paper gives none).
func versusRow(what string, v reproduce.Versus) []string {
	if v.Paper == 0 {
		return []string{what, x2(v.Acemu), "–", "–"}
	}
	return []string{what, x2(v.Acemu), x2(v.Paper), signed(v.Acemu-v.Paper, 2)}
}
