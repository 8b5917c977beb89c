package validation

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/acemu/acemu/platform"

	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/units"
)

// BlueConnectPaper is the BlueConnect paper.
var BlueConnectPaper = Source{"blueconnect", "BlueConnect: Novel Hierarchical All-Reduce on Multi-tired Network for Deep Learning"}

// blueconnectFig3 is the BlueConnect paper's Fig. 3 (Section 4): the flat
// ring, the two-level scheme (GLOO) and BlueConnect (BLC) on 4 to 192
// GPUs, on the ideal endpoint over switch fabrics.
var blueconnectFig3 = Figure{
	Name: "blueconnect-fig3", Source: BlueConnectPaper, Where: "Section 4, Fig. 3",
	Title:   "the flat ring, two-level and BlueConnect all-reduces on 4 to 192 GPUs",
	Quick:   true,
	Ignores: []string{"links.", "afi.", "collectives.", "baseline.", "training.", "ace.", "npu.compute_speed"},
	Flags:   []string{FlagTopos, FlagSize},
	Tabled:  true,
	Draws:   true,
	Run:     runBlueConnectFig3,
}

func runBlueConnectFig3(e Env) (*Outcome, error) {
	o := reproduce.DefaultBlueConnect()
	if e.Quick {
		o = reproduce.QuickBlueConnect()
	}
	o.Workers, o.Progress, o.Keep = e.Workers, e.Progress, e.keep()
	op := e.opts()
	o.Fabrics = orList(op.Topos, o.Fabrics)
	if op.Size != 0 {
		if e.Quick {
			return nil, fmt.Errorf("--quick is a size (1 MB); give --quick or --size, not both")
		}
		o.Size = op.Size
	}
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
	out.Notes = append(out.Notes, fmt.Sprintf("%s all-reduce per GPU, the ideal endpoint; the papers' cluster's bandwidths (docs/validation.md, \"BlueConnect\")", units.SizeLabel(o.Size, " ")))
	out.Table = blueconnectTable(o, res)
	return out, nil
}

// blueconnectTable is the sweep's table: each scheme's time per fabric
// beside the α-β model's, and the 192-GPU headline beside the paper's.
func blueconnectTable(o reproduce.BlueConnectOptions, res *reproduce.BlueConnectResult) *Table {
	t := &Table{Doc: res, Keys: 2, Header: []string{"fabric", "GPUs", "tier GB/s", "Ring ms", "GLOO ms", "BLC ms", "model Ring ms", "model GLOO ms", "model BLC ms"}}
	ms := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, row := range res.Rows {
		var tiers []string
		for _, w := range row.Bandwidths {
			tiers = append(tiers, strconv.FormatFloat(w, 'g', -1, 64))
		}
		cells := []string{row.Fabric, strconv.Itoa(row.NPUs), strings.Join(tiers, "/")}
		for _, v := range append(append([]float64(nil), row.Ms...), row.ModelMs...) {
			cells = append(cells, ms(v))
		}
		t.Rows = append(t.Rows, cells)
	}
	eff, _ := platform.Default().Efficiency.Float64() // the run's links: links.* keys are refused
	t.Notes = append(t.Notes,
		fmt.Sprintf("%s all-reduce per GPU (the paper's ResNet-50: about 100 MB of FP32 gradients), ideal endpoint, 64 KiB chunks pipelined, 8 KiB messages; Ring = flat ring, GLOO = two-level (Eq. (4)), BLC = BlueConnect on the fabric's tiers", units.SizeLabel(o.Size, " ")),
		fmt.Sprintf("model = the paper's α-β model, bandwidth terms only (α = 0; Eqs. (3), (4), (6)), at the raw bandwidths; acemu's links carry %.0f %% of them (links.efficiency, Table V)", 100*eff))
	if h, ok := res.Headline(); ok {
		ring, gloo, blc := h.Ms[0], h.Ms[1], h.Ms[2]
		t.Notes = append(t.Notes,
			fmt.Sprintf("192 GPUs, overhead: acemu BLC %s ms vs GLOO %s ms (GLOO/BLC %.2f×); paper about %.1f vs %.1f ms (%.2f×, its \"87%%\")",
				ms(blc), ms(gloo), gloo/blc, reproduce.PaperBLCOverheadMs, reproduce.PaperGLOOMs, reproduce.PaperGLOOMs/reproduce.PaperBLCOverheadMs),
			fmt.Sprintf("192 GPUs, throughput with %.1f ms of compute and no overlap: acemu BLC %+.1f %% vs GLOO, %+.1f %% vs Ring; paper +%.0f %% vs GLOO, +%.0f %% vs Ring (its figures do not reconcile exactly: docs/validation.md, \"BlueConnect\")",
				reproduce.PaperSingleGPUMs, 100*reproduce.ThroughputGain(blc, gloo), 100*reproduce.ThroughputGain(blc, ring), 100*reproduce.PaperBLCvsGLOO, 100*reproduce.PaperBLCvsRing))
	}
	return t
}
