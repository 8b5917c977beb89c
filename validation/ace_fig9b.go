package validation

import (
	"fmt"

	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
)

// aceFig9b is the ACE paper's Fig. 9(b) (Section VI-B, "ACE
// Utilization"): ACE's utilisation in the forward pass and in
// back-propagation, per workload, on the runs of Fig. 10.
var aceFig9b = Figure{
	Name: "fig9b", Source: ACEPaper, Where: "Section VI-B, Fig. 9(b)",
	Title: "ACE's utilisation in the forward pass and in back-propagation",
	Quick: true,
	Run:   runACEFig9b,
}

func runACEFig9b(e Env) (*Outcome, error) {
	// The runs of Fig. 10.
	topos := reproduce.DefaultFig9b().Topos
	if e.Quick {
		topos = quickTopos
	}
	pts, err := fig10Points(e, topos)
	if err != nil {
		return nil, err
	}
	res, err := reproduce.Fig9bOf(pts)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	if out.Plots, err = drawInto(e, func(dir string) ([]string, error) { return plots.Fig9b(res, dir) }); err != nil {
		return nil, err
	}
	const where = "Section VI-B"
	// "for back-propagation, the average utilization for ResNet-50, GNMT,
	// and DLRM is 96.4%, 91.3%, and 88.3%".
	paper := map[string]string{"resnet50": "96.4", "gnmt": "91.3", "dlrm": "88.3"}
	for _, r := range res.Rows {
		if p, ok := paper[r.Workload]; ok {
			out.Values = append(out.Values, Value{What: fmt.Sprintf("ACE's utilisation in back-propagation, %s on %s", r.Workload, r.Topo), Unit: "%", Where: where,
				Paper: Printed(p), Acemu: 100 * r.Backprop})
		}
		// "for forward-pass, ResNet-50 and GNMT have zero communication
		// while DLRM has only a single all-to-all communication, resulting
		// in low utilization of ACE".
		out.Findings = append(out.Findings, Finding{Claim: fmt.Sprintf("ACE is used less in the forward pass than in back-propagation (%s on %s)", r.Workload, r.Topo),
			Where: where, Holds: r.Forward < r.Backprop, Measured: fmt.Sprintf("forward %.1f %%, back-propagation %.1f %%", 100*r.Forward, 100*r.Backprop)})
	}
	return out, nil
}
