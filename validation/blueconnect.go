package validation

import (
	"fmt"

	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
)

// BlueConnectPaper is the BlueConnect paper.
var BlueConnectPaper = Source{"blueconnect", "BlueConnect: Decomposing All-Reduce for Deep Learning on Heterogeneous Network Hierarchy"}

// blueconnectFig3 is the BlueConnect paper's Fig. 3 (Section 4): the flat
// ring, the two-level scheme (GLOO) and BlueConnect (BLC) on 4 to 192
// GPUs, on the ideal endpoint over switch fabrics.
var blueconnectFig3 = Figure{
	Name: "blueconnect-fig3", Source: BlueConnectPaper, Where: "Section 4, Fig. 3",
	Title:   "the flat ring, two-level and BlueConnect all-reduces on 4 to 192 GPUs",
	Quick:   true,
	Ignores: []string{"links.", "afi.", "collectives.", "baseline.", "training.", "ace.", "npu.compute_speed"},
	Run:     runBlueConnectFig3,
}

func runBlueConnectFig3(e Env) (*Outcome, error) {
	o := reproduce.DefaultBlueConnect()
	if e.Quick {
		o = reproduce.QuickBlueConnect()
	}
	o.Workers, o.Progress = e.Workers, e.Progress
	res, err := reproduce.BlueConnect(o)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	if out.Plots, err = drawInto(e, func(dir string) ([]string, error) { return plots.BlueConnectFig3(res, dir) }); err != nil {
		return nil, err
	}
	const where = "Section 4"
	ring, gloo, blc := 0, 1, 2 // reproduce.BlueConnectAlgorithms' order
	if h, ok := res.Headline(); ok && !e.Quick {
		// "The communication overhead … for BLC on 192 GPUs is about
		// 31.0 msec … (58.0 vs 31.0 msec)"; "BLC delivers 11% higher
		// throughput than GLOO, and 45% higher throughput than Ring".
		const why = "the paper's overhead is everything an iteration pays beyond one GPU's (jitter, copies, the library); acemu's the ideal endpoint's all-reduce alone (docs/validation.md, \"BlueConnect\")"
		out.Values = append(out.Values,
			Value{What: "BLC's overhead at 192 GPUs", Unit: "ms", Where: where, Paper: Printed("about 31.0"), Acemu: h.Ms[blc], Why: why},
			Value{What: "GLOO's overhead at 192 GPUs", Unit: "ms", Where: where, Paper: Printed("58.0"), Acemu: h.Ms[gloo], Why: why},
			Value{What: "BLC's throughput over GLOO's at 192 GPUs", Unit: "%", Where: where, Paper: Printed("11"), Acemu: 100 * reproduce.ThroughputGain(h.Ms[blc], h.Ms[gloo]), Why: why},
			Value{What: "BLC's throughput over Ring's at 192 GPUs", Unit: "%", Where: where, Paper: Printed("45"), Acemu: 100 * reproduce.ThroughputGain(h.Ms[blc], h.Ms[ring]), Why: why},
		)
	}
	// "BLC incurs less communication overhead with more GPUs" than GLOO
	// past one node; against the flat ring the paper's claim is at its
	// 100 MB, where the ring's steps cost more than their latency (the
	// quick subset's 1 MB rings pay only the wires' latency).
	for _, r := range res.Rows {
		if r.NPUs <= 4 {
			continue // one node: BLC is the ring, GLOO NCCL's
		}
		out.Findings = append(out.Findings, Finding{Claim: fmt.Sprintf("BLC's all-reduce is faster than GLOO's (%d GPUs)", r.NPUs), Where: where,
			Holds: r.Ms[blc] < r.Ms[gloo], Measured: fmt.Sprintf("BLC %.3f ms, GLOO %.3f ms", r.Ms[blc], r.Ms[gloo])})
		if !e.Quick {
			out.Findings = append(out.Findings, Finding{Claim: fmt.Sprintf("BLC's all-reduce is faster than the flat ring's (%d GPUs)", r.NPUs), Where: where,
				Holds: r.Ms[blc] < r.Ms[ring], Measured: fmt.Sprintf("BLC %.3f ms, Ring %.3f ms", r.Ms[blc], r.Ms[ring])})
		}
	}
	out.Notes = append(out.Notes, fmt.Sprintf("%d MB all-reduce per GPU, the ideal endpoint; the papers' cluster's bandwidths (docs/validation.md, \"BlueConnect\")", o.Size/1_000_000))
	return out, nil
}
