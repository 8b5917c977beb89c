package validation

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/units"
)

// aceFig5 is the ACE paper's Fig. 5 (Section III): the network bandwidth
// of a 64 MB hierarchical all-reduce on 16 and 64 NPUs as the memory
// bandwidth given to communication grows, the baseline (all 80 SMs) beside
// ACE and the ideal endpoint.
var aceFig5 = Figure{
	Name: "fig5", Source: ACEPaper, Where: "Section III, Fig. 5",
	Title: "network bandwidth against the memory bandwidth given to communication",
	// Its runs, folded, take seconds: the quick subset runs them as the
	// paper set them up, and the tests hold the committed report to them.
	Quick:   true,
	Same:    true,
	Ignores: []string{"afi.", "collectives.", "baseline.", "training.", "ace.mem_bw", "npu.compute_speed"},
	Flags:   []string{FlagTopos, FlagSize, FlagMem},
	Tabled:  true,
	Draws:   true,
	Run:     runACEFig5,
}

func runACEFig5(e Env) (*Outcome, error) {
	o := reproduce.DefaultFig5()
	o.ACE, o.Links, o.Workers, o.Progress, o.Keep = e.Platform.ACE, reproduce.LinkKeys(e.Platform), e.Workers, e.Progress, e.keep()
	op := e.opts()
	o.Topos, o.Size, o.MemGBps = orList(op.Topos, o.Topos), cmp.Or(op.Size, o.Size), orList(op.Mem, o.MemGBps)
	res, err := reproduce.Fig5(o)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	if out.Plots, err = drawInto(e, func(dir string) ([]string, error) { return plots.Fig5(res, dir) }); err != nil {
		return nil, err
	}
	const where = "Section III"
	// "the ideal system can reach up to 300 GB/s BW utilization, out of
	// available 500 GB/s", on 16 and 64 NPUs: a number the paper prints,
	// so to half a unit (not "≈").
	ideal := map[string]struct{ what, why string }{
		"4x4x4": {"ideal endpoint's network bandwidth, 64 NPUs (4x4x4)",
			"the paper's 300 is 4x4x4's bound at the links' raw bandwidth; acemu's links carry 94 % of their bandwidth as payload (Table V), a bound of 282, which the ideal reaches but for pipeline fill and drain (docs/validation.md, \"Ideal endpoint, 64 MiB all-reduce\")"},
		"4x2x2": {"ideal endpoint's network bandwidth, 16 NPUs (4x2x2)",
			"the paper does not give its 16-NPU torus's shape: on 4x2x2 a size-2 ring has two links each way and the bound is 376 GB/s (on 4x4x1 it is 235); neither is 300 (docs/validation.md, \"Ideal endpoint, 64 MiB all-reduce\")"},
	}
	for _, r := range res.Rows {
		if d, ok := ideal[r.Topo]; ok && r.MemGBps == slices.Max(o.MemGBps) {
			out.Values = append(out.Values, Value{What: d.what, Unit: "GB/s", Where: where,
				Paper: Printed("300"), Acemu: r.IdealBW, Why: d.why})
		}
	}
	// "the baseline system needs ≈ 450 GB/s memory BW on average to reach
	// 90% of ideal network BW … for ACE, 128GB/s is enough … resulting in
	// ≈ 3.5× reduction": the means over the two sizes.
	base, aceBW, reached := 0.0, 0.0, true
	for _, t := range res.Thresholds {
		base += float64(t.Baseline) / float64(len(res.Thresholds))
		aceBW += float64(t.ACE) / float64(len(res.Thresholds))
		reached = reached && t.Baseline > 0 && t.ACE > 0
	}
	none := ""
	if !reached {
		none = "90 % of ideal not reached within the sweep on every size"
	}
	size := units.FormatSize(o.Size) + " all-reduce"
	const sec = " (docs/validation.md, \"Fig. 5: the baseline and ACE as memory bandwidth grows\")"
	out.Values = append(out.Values,
		Value{What: "memory bandwidth the baseline needs for 90 % of ideal, mean over 16 and 64 NPUs, " + size, Unit: "GB/s", Where: where,
			Paper: Printed("≈ 450"), Acemu: base, None: none,
			Why: "4x4x4 needs the paper's 450 GB/s; 4x2x2, whose ideal is higher and whose 2-NPU rings read 1.75 bytes per byte sent, needs more (the paper does not give its 16-NPU torus's shape)" + sec},
		Value{What: "memory bandwidth ACE needs for 90 % of ideal, mean over 16 and 64 NPUs, " + size, Unit: "GB/s", Where: where,
			Paper: Printed("128"), Acemu: aceBW, None: none,
			Why: "4x4x4 needs the paper's 128 GB/s; on 4x2x2 ACE sends 2 bytes per byte it loads, so 90 % of its ideal needs 168 GB/s, and the sweep's next point is 192" + sec},
	)
	ratio := 0.0
	if aceBW > 0 {
		ratio = base / aceBW
	}
	out.Values = append(out.Values, Value{What: "the baseline's memory bandwidth for 90 % of ideal over ACE's", Unit: "×", Where: where,
		Paper: Printed("≈ 3.5"), Acemu: ratio, None: none,
		Why: "4x4x4 gives the paper's ratio (450 over 128); 4x2x2's thresholds, both above the paper's, lift the mean" + sec})
	for _, t := range res.Thresholds {
		f := Finding{Claim: "ACE reaches 90 % of the ideal network bandwidth with less memory bandwidth than the baseline (" + t.Topo + ")", Where: where,
			Holds:    t.ACE > 0 && (t.Baseline == 0 || t.ACE < t.Baseline),
			Measured: fmt.Sprintf("baseline %s, ACE %s", gbps(t.Baseline), gbps(t.ACE))}
		out.Findings = append(out.Findings, f)
	}
	out.Notes = append(out.Notes, fmt.Sprintf("%s per NPU, the baseline on all 80 SMs; thresholds are the least point of the sweep (%v GB/s) reaching 90 %% of the ideal endpoint's bandwidth", size, slices.Sorted(slices.Values(o.MemGBps))))
	t := &Table{Doc: res, Header: []string{"topology", "comm mem GB/s", "baseline GB/s", "baseline % ideal", "ACE GB/s", "ACE % ideal", "ideal GB/s"}}
	for _, x := range res.Rows {
		t.Rows = append(t.Rows, []string{x.Topo, fmt.Sprint(x.MemGBps), f1(x.BaselineBW), f1(100 * x.BaselineOfIdeal), f1(x.ACEBW), f1(100 * x.ACEOfIdeal), f1(x.IdealBW)})
	}
	for _, th := range res.Thresholds {
		r := ""
		if th.Ratio != 0 {
			r = fmt.Sprintf(" (%.2f×)", th.Ratio)
		}
		t.Notes = append(t.Notes, fmt.Sprintf("%s: 90 %% of ideal first reached at baseline %s, ACE %s%s (paper: ≈ 450 vs 128 GB/s, ≈ 3.5×)",
			th.Topo, gbps(th.Baseline), gbps(th.ACE), r))
	}
	out.Table = t
	return out, nil
}

// gbps prints a threshold in GB/s, or "not reached".
func gbps(v int64) string {
	if v == 0 {
		return "not reached"
	}
	return fmt.Sprintf("%d GB/s", v)
}
