package reproduce

import (
	"fmt"
	"slices"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/sweep"
)

// Fig9bOptions chooses the ACE paper's Fig. 9(b): ACE's utilisation in the
// forward pass and in back-propagation, for each workload on each
// topology (the paper's: those of Fig. 10, 4x8x4), ACE alone (Table VI's
// ACE system).
type Fig9bOptions struct {
	Trained
}

// DefaultFig9b is the paper's three workloads in the default compute
// regime on 4x8x4, two iterations (the runs of Fig. 10).
func DefaultFig9b() Fig9bOptions {
	return Fig9bOptions{Trained{Platform: platform.Default(),
		Workloads: []string{"resnet50", "gnmt", "dlrm"},
		Topos:     []string{"4x8x4"}}}
}

// Fig9bRow is one workload on one topology: ACE's utilisation within the
// forward passes, within back-propagation and over the whole run, the
// passes' lengths, and the paper's figures (empty where it gives none).
type Fig9bRow struct {
	Workload string `json:"workload"`
	Topo     string `json:"topology"`
	// Forward and Backprop are the utilisations within the passes, Whole
	// over the run (docs/validation.md, "ACE utilisation by pass").
	Forward  float64 `json:"forward_utilization"`
	Backprop float64 `json:"backprop_utilization"`
	Whole    float64 `json:"utilization"`
	// ForwardCycles and BackpropCycles are the passes' lengths, summed
	// over the iterations.
	ForwardCycles  int64 `json:"forward_pass_cycles"`
	BackpropCycles int64 `json:"backprop_pass_cycles"`
	// PaperBackprop is the paper's back-propagation utilisation, and
	// PaperForward what it says of the forward pass.
	PaperBackprop float64 `json:"paper_backprop_utilization,omitempty"`
	PaperForward  string  `json:"paper_forward,omitempty"`
}

// Fig9bResult is the figure.
type Fig9bResult struct {
	Rows []Fig9bRow `json:"rows"`
}

// paperFig9b is Section VI-B's "ACE Utilization": "for forward-pass,
// ResNet-50 and GNMT have zero communication while DLRM has only a single
// all-to-all communication, resulting in low utilization of ACE. However,
// for back-propagation, the average utilization for ResNet-50, GNMT, and
// DLRM is 96.4%, 91.3%, and 88.3%, respectively."
var paperFig9b = map[string]struct {
	forward  string
	backprop float64
}{
	"resnet50": {"near zero", 0.964},
	"gnmt":     {"near zero", 0.913},
	"dlrm":     {"low", 0.883},
}

// Fig9b runs the figure, runs in parallel and results in a fixed order.
func Fig9b(o Fig9bOptions) (*Fig9bResult, error) {
	if len(o.Workloads) == 0 || len(o.Topos) == 0 {
		return nil, fmt.Errorf("fig9b needs at least one workload and topology")
	}
	pts, err := o.train("fig9b", nil, []string{"ace"}, nil)
	if err != nil {
		return nil, err
	}
	return Fig9bOf(pts)
}

// Fig9bOf is the figure formed from its points, however they were run
// (each with ACE among its systems; Trained.Run): a row per point, in the
// points' order.
func Fig9bOf(pts []sweep.PointResult) (*Fig9bResult, error) {
	res := &Fig9bResult{}
	for _, p := range pts {
		i := slices.IndexFunc(p.Systems, func(s compare.SystemResult) bool { return s.Name == "ace" })
		if i < 0 {
			return nil, fmt.Errorf("fig9b: %s on %s: no ACE run", p.Workload, p.Topology)
		}
		s := p.Systems[i]
		if s.ACEUtilization == nil || s.ACEForwardUtilization == nil || s.ACEBackpropUtilization == nil {
			return nil, fmt.Errorf("fig9b: %s on %s: the run reports no ACE utilisation", p.Workload, p.Topology)
		}
		paper := paperFig9b[p.Workload]
		res.Rows = append(res.Rows, Fig9bRow{Workload: p.Workload, Topo: p.Topology,
			Forward: *s.ACEForwardUtilization, Backprop: *s.ACEBackpropUtilization, Whole: *s.ACEUtilization,
			ForwardCycles: s.ForwardCycles, BackpropCycles: s.BackpropCycles,
			PaperBackprop: paper.backprop, PaperForward: paper.forward})
	}
	return res, nil
}
