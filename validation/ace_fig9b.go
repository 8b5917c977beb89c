package validation

import (
	"fmt"
	"slices"

	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/units"
)

// aceFig9b is the ACE paper's Fig. 9(b) (Section VI-B, "ACE
// Utilization"): ACE's utilisation in the forward pass and in
// back-propagation, per workload, on the runs of Fig. 10.
var aceFig9b = Figure{
	Name: "fig9b", Source: ACEPaper, Where: "Section VI-B, Fig. 9(b)",
	Title:  "ACE's utilisation in the forward pass and in back-propagation",
	Quick:  true,
	Flags:  []string{FlagTopos, FlagWorkloads},
	Tabled: true,
	Draws:  true,
	Run:    runACEFig9b,
}

func runACEFig9b(e Env) (*Outcome, error) {
	var res *reproduce.Fig9bResult
	if e.inReport() {
		// The runs of Fig. 10.
		topos := reproduce.DefaultFig9b().Topos
		if e.Quick {
			topos = quickTopos
		}
		pts, err := fig10Points(e, topos)
		if err != nil {
			return nil, err
		}
		if res, err = reproduce.Fig9bOf(pts); err != nil {
			return nil, err
		}
	} else {
		// Run by name: ACE's runs alone, a sweep of their own.
		o := reproduce.DefaultFig9b()
		o.Trained = trained(e, o.Trained)
		var err error
		if res, err = reproduce.Fig9b(o); err != nil {
			return nil, err
		}
	}
	out := &Outcome{Table: fig9bTable(e, res)}
	var err error
	if out.Plots, err = drawInto(e, func(dir string) ([]string, error) { return plots.Fig9b(res, dir) }); err != nil {
		return nil, err
	}
	const where = "Section VI-B"
	// "for back-propagation, the average utilization for ResNet-50, GNMT,
	// and DLRM is 96.4%, 91.3%, and 88.3%".
	paper := map[string]string{"resnet50": "96.4", "gnmt": "91.3", "dlrm": "88.3"}
	for _, r := range res.Rows {
		if p, ok := paper[r.Workload]; ok {
			why := "not traced (docs/validation.md, \"ACE utilisation by pass\")"
			if r.Workload == "gnmt" {
				why = "GNMT has no paper regime: on the roofline at batch 128 its back-propagation computes so long that ACE holds chunks for a small part of it (docs/validation.md, \"ACE utilisation by pass\")"
			}
			out.Values = append(out.Values, Value{What: fmt.Sprintf("ACE's utilisation in back-propagation, %s on %s", r.Workload, r.Topo), Unit: "%", Where: where,
				Paper: Printed(p), Acemu: 100 * r.Backprop, Why: why})
		}
		// "for forward-pass, ResNet-50 and GNMT have zero communication
		// while DLRM has only a single all-to-all communication, resulting
		// in low utilization of ACE".
		out.Findings = append(out.Findings, Finding{Claim: fmt.Sprintf("ACE is used less in the forward pass than in back-propagation (%s on %s)", r.Workload, r.Topo),
			Where: where, Holds: r.Forward < r.Backprop, Measured: fmt.Sprintf("forward %.1f %%, back-propagation %.1f %%", 100*r.Forward, 100*r.Backprop)})
	}
	return out, nil
}

// fig9bTable is the utilisations' table, the paper's beside acemu's; in
// CSV the paper's back-propagation figure a column of its own (its
// forward figure is a word, "low", in the table only).
func fig9bTable(e Env, res *reproduce.Fig9bResult) *Table {
	t := &Table{Doc: res, Keys: 2, Header: []string{"workload", "topology", "forward % (paper)", "back-prop % (paper)", "whole run %", "forward share of run %"}}
	t.Full = &Grid{Header: []string{"workload", "topology", "forward %", "back-prop %", "paper back-prop %", "whole run %", "forward share of run %"}}
	for _, x := range res.Rows {
		if !slices.Contains(t.Workloads, x.Workload) {
			t.Workloads = append(t.Workloads, x.Workload)
		}
		fwd, back, paperBack := f1(100*x.Forward), f1(100*x.Backprop), "-"
		share := "-" // a run with neither pass has no share
		if all := x.ForwardCycles + x.BackpropCycles; all > 0 {
			share = f1(100 * float64(x.ForwardCycles) / float64(all))
		}
		if x.PaperForward != "" {
			paperBack = f1(100 * x.PaperBackprop)
		}
		t.Full.Rows = append(t.Full.Rows, []string{x.Workload, x.Topo, fwd, back, paperBack, f1(100 * x.Whole), share})
		if x.PaperForward != "" {
			fwd += " (" + x.PaperForward + ")"
			back += " (" + paperBack + ")"
		}
		t.Rows = append(t.Rows, []string{x.Workload, x.Topo, fwd, back, f1(100 * x.Whole), share})
	}
	t.Notes = append(t.Notes, fmt.Sprintf("ACE utilised: holding at least one chunk (the paper: \"at least one chunk for processing\"); %s, memory policy %s; (paper): Section VI-B, \"ACE Utilization\"; docs/validation.md defines the passes",
		units.Count(e.Platform.Iterations, "iteration"), e.Platform.Memory))
	return t
}
