package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
)

// runBlueConnectFig3 is acemu reproduce blueconnect-fig3: the BlueConnect
// paper's Fig. 3 analogue (reproduce.BlueConnect) and its 192-GPU
// headline beside acemu's.
func runBlueConnectFig3(r *figRun) error {
	o := reproduce.DefaultBlueConnect()
	if r.quick {
		o = reproduce.QuickBlueConnect()
	}
	o.Workers, o.Progress = r.workers, r.progress
	if r.fs.Changed("topos") {
		o.Fabrics = r.topos
	}
	if r.fs.Changed("size") {
		if r.quick {
			return fmt.Errorf("--quick is a size (1 MB); give --quick or --size, not both")
		}
		o.Size = r.size
	}
	x, err := drawn(r, func() (*reproduce.BlueConnectResult, error) { return reproduce.BlueConnect(o) }, plots.BlueConnectFig3)
	if err != nil {
		return err
	}
	r.res.doc, r.res.keys = x, 2
	r.res.header = []string{"fabric", "GPUs", "tier GB/s", "Ring ms", "GLOO ms", "BLC ms", "model Ring ms", "model GLOO ms", "model BLC ms"}
	ms := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, row := range x.Rows {
		var tiers []string
		for _, w := range row.Bandwidths {
			tiers = append(tiers, strconv.FormatFloat(w, 'g', -1, 64))
		}
		cells := []string{row.Fabric, strconv.Itoa(row.NPUs), strings.Join(tiers, "/")}
		for _, v := range append(append([]float64(nil), row.Ms...), row.ModelMs...) {
			cells = append(cells, ms(v))
		}
		r.res.rows = append(r.res.rows, cells)
	}
	eff, _ := platform.Default().Efficiency.Float64() // the run's links: links.* keys are refused
	r.res.notes = append(r.res.notes,
		fmt.Sprintf("%s all-reduce per GPU (the paper's ResNet-50: about 100 MB of FP32 gradients), ideal endpoint, 64 KiB chunks pipelined, 8 KiB messages; Ring = flat ring, GLOO = two-level (Eq. (4)), BLC = BlueConnect on the fabric's tiers", fmtBytes(o.Size)),
		fmt.Sprintf("model = the paper's α-β model, bandwidth terms only (α = 0; Eqs. (3), (4), (6)), at the raw bandwidths; acemu's links carry %.0f %% of them (links.efficiency, Table V)", 100*eff))
	if h, ok := x.Headline(); ok {
		ring, gloo, blc := h.Ms[0], h.Ms[1], h.Ms[2]
		r.res.notes = append(r.res.notes,
			fmt.Sprintf("192 GPUs, overhead: acemu BLC %s ms vs GLOO %s ms (GLOO/BLC %.2f×); paper about %.1f vs %.1f ms (%.2f×, its \"87%%\")",
				ms(blc), ms(gloo), gloo/blc, reproduce.PaperBLCOverheadMs, reproduce.PaperGLOOMs, reproduce.PaperGLOOMs/reproduce.PaperBLCOverheadMs),
			fmt.Sprintf("192 GPUs, throughput with %.1f ms of compute and no overlap: acemu BLC %+.1f %% vs GLOO, %+.1f %% vs Ring; paper +%.0f %% vs GLOO, +%.0f %% vs Ring (its figures do not reconcile exactly: docs/validation.md, \"BlueConnect\")",
				reproduce.PaperSingleGPUMs, 100*reproduce.ThroughputGain(blc, gloo), 100*reproduce.ThroughputGain(blc, ring), 100*reproduce.PaperBLCvsGLOO, 100*reproduce.PaperBLCvsRing))
	}
	return nil
}
