package validation

import (
	"fmt"

	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
)

// aceFig11 is the ACE paper's Fig. 11 (Section VI-C): the five systems
// training each workload on every torus size, and the averages the
// section draws from them.
var aceFig11 = Figure{
	Name: "fig11", Source: ACEPaper, Where: "Section VI-C, Fig. 11",
	Title: "the five systems on every system size, and their averages",
	Quick: true,
	Run:   runACEFig11,
}

func runACEFig11(e Env) (*Outcome, error) {
	topos := reproduce.DefaultFig11().Topos
	if e.Quick {
		topos = append([]string{"4x2x1"}, quickTopos...)
	}
	res, err := fig11Of(e, topos)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	if out.Plots, err = drawInto(e, func(dir string) ([]string, error) { return plots.Fig11(res, dir) }); err != nil {
		return nil, err
	}
	const where = "Section VI-C"
	for _, v := range res.FractionOfIdeal {
		out.Values = append(out.Values, Value{What: "% of ideal, " + v.What + ", mean over sizes and workloads", Unit: "%", Where: where,
			Paper: Printed(percentText(v.Paper)), Acemu: 100 * v.Acemu})
	}
	for _, v := range res.OverBest {
		out.Values = append(out.Values, Value{What: "ACE's speed-up over the best baseline, " + v.What + " over sizes", Unit: "×", Where: where,
			Paper: Printed(fmt.Sprintf("%.2f", v.Paper)), Acemu: v.Acemu})
	}
	for _, v := range res.Bandwidth {
		if v.Paper != 0 { // the measured ratios have no paper value
			out.Values = append(out.Values, Value{What: "ACE's effective network bandwidth over every baseline's, " + v.What, Unit: "×", Where: where,
				Paper: Printed(fmt.Sprintf("%.2f", v.Paper)), Acemu: v.Acemu})
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
