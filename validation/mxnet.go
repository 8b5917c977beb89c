package validation

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/sweep"
	"github.com/acemu/acemu/torus"
)

// MXNetPaper is the MXNet-MPI paper.
var MXNetPaper = Source{"mxnet", "Efficient Embedding of MPI Collectives in MXNET DAGs for scaling Deep Learning"}

// mxnetPolicies is the MXNet-MPI paper's designs (Section 4, results in
// Section 5, Figs. 13–16) as acemu runs them: ResNet-50 in the ACE
// paper's regime, the weight gradients' all-reduces issued by Funnel,
// ConCum(2) and DepCha, without copies and with each gradient copied to
// the host at the paper's testbed's rate (mxnetCopy; the copy back is
// left out, docs/training-loop.md), on the SM-driven baseline and ACE.
var mxnetPolicies = Figure{
	Name: "mxnet-policies", Source: MXNetPaper, Where: "Sections 4 and 5",
	Title:   "Funnel, ConCum and DepCha issuing ResNet-50's all-reduces",
	Quick:   true,
	Ignores: []string{"training.issue_policy", "training.copy"},
	Run:     runMXNetPolicies,
}

// mxnetCopy is the copy rate of the runs with copies [choice]: the
// paper's testbed's (Section 5: IBM Minsky nodes, whose Pascal GPUs reach
// the host's memory, where MPI works, over two NVLink 1.0 links of 20 GB/s
// each way): 40 GB/s.
const mxnetCopy = "40GB/s"

// mxnetPaperGPUs is the most GPUs the paper's factor of 1.6 is claimed
// for (Section 5, Fig. 14: "all the configurations up to 128 GPUs").
const mxnetPaperGPUs = 128

// mxnetFactorKnown is why acemu's DepCha does not gain the paper's factor
// over Funnel: without copies the two are equal (the same chain of
// all-reduces), so F_c / D_c > 1.6 is ΔF > 0.6 F_0 + 1.6 ΔD, ΔF and ΔD
// what the copies add to each.
const mxnetFactorKnown = "without copies DepCha and Funnel take the same time, so the factor passes 1.6 only where the copies add more than 0.6 of that time to Funnel's, plus 1.6 times what they add to DepCha's; ResNet-50's gradients copied once at 40 GB/s (no copy back, a [choice]) add less, and the paper's Inception-BN on its testbed is not modelled (docs/validation.md, \"Issue policies\")"

func runMXNetPolicies(e Env) (*Outcome, error) {
	t := trained(e, reproduce.Trained{Workloads: []string{"resnet50"}, Topos: []string{"2x2x2", "4x2x2", "4x4x2", "4x4x4", "4x8x4", "4x8x8"}})
	systems := []string{"baseline-commopt", "ace"}
	// Each sweep's reference point (its platform's values) is on its
	// axis: eager without copies, Funnel with them.
	runs := func(dir, base string, sets []string) ([]sweep.PointResult, error) {
		u := t
		if t.Dir != "" {
			u.Dir = t.Dir + "-" + dir
		}
		if err := u.Platform.Set("training.issue_policy", base); err != nil {
			return nil, err
		}
		return u.Run("mxnet-policies", sets, systems)
	}
	// A shard runs its points of both sweeps before it stops.
	plain, err := runs("plain", "eager", []string{"training.issue_policy=eager,funnel,concum:2,depcha"})
	if err != nil && !errors.Is(err, sweep.ErrSharded) {
		return nil, err
	}
	copied, err2 := runs("copies", "funnel", []string{"training.issue_policy=funnel,concum:2,depcha", "training.copy=" + mxnetCopy})
	if err = cmp.Or(err2, err); err != nil {
		return nil, err
	}
	// cycles by copies, policy, topology and system.
	cycles := map[[4]string]int64{}
	for _, set := range []struct {
		name string
		pts  []sweep.PointResult
	}{{"none", plain}, {mxnetCopy, copied}} {
		for _, p := range set.pts {
			for _, s := range p.Systems {
				cycles[[4]string{set.name, p.Values[0], p.Topology, s.Name}] = s.TotalCycles
			}
		}
	}
	const where = "Section 5"
	out := &Outcome{}
	for _, topo := range t.Topos {
		sh, err := torus.Parse(topo)
		if err != nil {
			return nil, fmt.Errorf("mxnet-policies: %w", err)
		}
		for _, sys := range systems {
			on := fmt.Sprintf("%s on %s", sys, topo)
			for _, copies := range []string{"none", mxnetCopy} {
				c := func(pol string) int64 { return cycles[[4]string{copies, pol, topo, sys}] }
				f, cc, d := c("funnel"), c("concum:2"), c("depcha")
				with := "without copies"
				if copies != "none" {
					with = "copies at " + copies
				}
				ms := func(x int64) string {
					return fmt.Sprintf("%.3f ms", float64(x)/float64(t.Platform.Iterations)/rtl.ClockHz*1e3)
				}
				m := fmt.Sprintf("per iteration: Funnel %s, ConCum(2) %s, DepCha %s", ms(f), ms(cc), ms(d))
				out.Findings = append(out.Findings,
					Finding{Claim: fmt.Sprintf("DepCha is no slower than Funnel (%s, %s)", on, with), Where: where, Holds: d <= f, Measured: m},
					Finding{Claim: fmt.Sprintf("ConCum is faster than Funnel (%s, %s)", on, with), Where: where, Holds: cc < f, Measured: m})
				best := Finding{Claim: fmt.Sprintf("DepCha is the fastest of the three designs (%s, %s)", on, with), Where: where, Holds: d < cc && d < f, Measured: m}
				if copies == "none" {
					best.Known = "without copies DepCha's chain pays each all-reduce's latency in turn, where ConCum keeps two in flight; the paper's DepCha gains by taking host copies off the critical path (docs/validation.md, \"Issue policies\")"
				} else if sys == "baseline-commopt" && sh.N() >= 64 {
					best.Known = "from 64 NPUs the baseline's library latency, which DepCha's chain pays for each of the 54 all-reduces in turn, grows with the rings' steps past the copies it takes off the critical path (the same at every size), and ConCum(2) is ahead (docs/validation.md, \"Issue policies\")"
				}
				out.Findings = append(out.Findings, best)
				// "dependency chaining lowers the training time by a factor
				// of more than 1.6 compared to the funneled approach for all
				// the configurations up to 128 GPUs" (Fig. 14, Inception-BN;
				// "similar trends using Resnet with 50 layers", Fig. 15).
				if copies != "none" && sh.N() <= mxnetPaperGPUs {
					out.Findings = append(out.Findings, Finding{Claim: fmt.Sprintf("DepCha lowers the time by a factor of more than 1.6 against Funnel (%s, %s; the paper: Inception-BN, up to 128 GPUs)", on, with), Where: where,
						Holds: 5*f > 8*d, Measured: fmt.Sprintf("Funnel / DepCha = %.3f", float64(f)/float64(d)), Known: mxnetFactorKnown})
				}
			}
		}
	}
	out.Notes = append(out.Notes, fmt.Sprintf("ResNet-50 in the ACE paper's compute regime, %d iterations; copies, where made, at %s, the paper's testbed's host link (two NVLink 1.0 links each way), on a copy engine beside the NPU's memory (docs/training-loop.md, \"Issue policies\"); the paper gives its results as plots of other workloads, so only its orderings and the factor its prose gives are checked", t.Platform.Iterations, mxnetCopy))
	return out, nil
}
