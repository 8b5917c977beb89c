package reproduce

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/units"
)

// Fig9aOptions chooses the Fig. 9(a) sweep: ACE's SRAM size × FSM count,
// each point a training run of every workload on every topology, ACE alone
// (Table VI's ACE system), with the rest of ACE's design point from ACE.
// ACE, Iterations and Memory replace those of Trained's platform.
type Fig9aOptions struct {
	Trained
	SRAM       []int64 // bytes
	FSMs       []int   // FSM counts
	Iterations int
	// BaseSRAM and BaseFSMs are the point every other is normalised to
	// (the paper's 4 MB and 16 FSMs); it must be in the grid.
	BaseSRAM int64
	BaseFSMs int
	ACE      ace.Config // the other parameters of the design point
	// Memory is how compute and communication share each NPU.
	Memory contend.Policy
}

// DefaultFig9a is the paper's Fig. 9(a) grid (1–8 MiB × 4–20 FSMs) on the
// paper's three workloads in the default compute regime (ResNet-50 and
// DLRM from the paper's simulator, GNMT on the roofline; docs/workloads.md),
// on 4x4x4 and 4x8x4.
func DefaultFig9a() Fig9aOptions {
	return Fig9aOptions{
		Trained:    Trained{Platform: platform.Default(), Workloads: []string{"resnet50", "gnmt", "dlrm"}, Topos: []string{"4x4x4", "4x8x4"}},
		SRAM:       []int64{1 << 20, 2 << 20, 4 << 20, 8 << 20},
		FSMs:       []int{4, 8, 12, 16, 20},
		Iterations: 2,
		BaseSRAM:   4 << 20, BaseFSMs: 16,
		ACE:    ace.Default(),
		Memory: contend.Share,
	}
}

// Fig9aRun is one training run: a workload on a topology at one design
// point.
type Fig9aRun struct {
	Topo     string `json:"topo"`
	Workload string `json:"workload"`
	SRAM     int64  `json:"sram_bytes"`
	FSMs     int    `json:"fsms"`
	Cycles   int64  `json:"total_cycles"`
	// Perf is the base point's cycles over this point's for the same
	// workload and topology (> 1: faster than the base).
	Perf float64 `json:"perf_vs_base"`
}

// Fig9aCell is one design point, averaged as the paper averages: the mean
// over workloads and system sizes of performance normalised to the base.
type Fig9aCell struct {
	SRAM int64   `json:"sram_bytes"`
	FSMs int     `json:"fsms"`
	Perf float64 `json:"perf_vs_base"`
}

// Fig9aResult is the sweep: every run, the averaged grid, and the largest
// loss that more SRAM or more FSMs caused (between neighbouring cells).
type Fig9aResult struct {
	Runs  []Fig9aRun  `json:"runs"`
	Cells []Fig9aCell `json:"cells"`
	// WorstStep is the largest drop in averaged performance from a cell to
	// its neighbour with more SRAM or more FSMs, as a fraction (0: more
	// never costs anything), with the two cells.
	WorstStep float64    `json:"worst_step_loss"`
	WorstFrom *Fig9aCell `json:"worst_step_from,omitempty"`
	WorstTo   *Fig9aCell `json:"worst_step_to,omitempty"`
	BaseSRAM  int64      `json:"base_sram_bytes"`
	BaseFSMs  int        `json:"base_fsms"`
}

// Fig9a runs the sweep, points in parallel and results in a fixed order.
func Fig9a(o Fig9aOptions) (*Fig9aResult, error) {
	if len(o.SRAM) == 0 || len(o.FSMs) == 0 || len(o.Workloads) == 0 || len(o.Topos) == 0 {
		return nil, fmt.Errorf("fig9a needs at least one SRAM size, FSM count, workload and topology")
	}
	// The grid's neighbours (more SRAM, more FSMs) need ascending axes.
	if !slices.IsSorted(o.SRAM) || !slices.IsSorted(o.FSMs) ||
		len(slices.Compact(slices.Clone(o.SRAM))) != len(o.SRAM) || len(slices.Compact(slices.Clone(o.FSMs))) != len(o.FSMs) {
		return nil, fmt.Errorf("fig9a: give SRAM sizes and FSM counts in ascending order without repeats (e.g. 1MiB,2MiB,4MiB,8MiB and 4,8,12,16,20)")
	}
	bi, bj := -1, -1
	for i, s := range o.SRAM {
		if s == o.BaseSRAM {
			bi = i
		}
	}
	for j, f := range o.FSMs {
		if f == o.BaseFSMs {
			bj = j
		}
	}
	if bi < 0 || bj < 0 {
		return nil, fmt.Errorf("fig9a: the base point (%d B SRAM, %d FSMs) must be one of the grid's points: include that SRAM size and FSM count", o.BaseSRAM, o.BaseFSMs)
	}
	// The grid is a sweep (docs/sweeps.md): ACE alone, the SRAM and FSM
	// axes, then workloads, then topologies.
	tr := o.Trained
	tr.Platform.ACE, tr.Platform.Iterations, tr.Platform.Memory = o.ACE, o.Iterations, o.Memory
	var sram, fsms []string
	for _, v := range o.SRAM {
		sram = append(sram, units.FormatSize(v))
	}
	for _, v := range o.FSMs {
		fsms = append(fsms, strconv.Itoa(v))
	}
	// The base point is the reference of the axes that have more than one
	// value (one value is a setting, not an axis).
	var ref []string
	if len(sram) > 1 {
		ref = append(ref, "ace.sram="+units.FormatSize(o.BaseSRAM))
	}
	if len(fsms) > 1 {
		ref = append(ref, "ace.fsms="+strconv.Itoa(o.BaseFSMs))
	}
	pts, err := tr.train("fig9a", []string{"ace.sram=" + strings.Join(sram, ","), "ace.fsms=" + strings.Join(fsms, ",")}, []string{"ace"}, ref)
	if err != nil {
		return nil, err
	}
	nt, nw, ns, nf := len(o.Topos), len(o.Workloads), len(o.SRAM), len(o.FSMs)
	runs := make([]Fig9aRun, nt*nw*ns*nf)
	idx := func(t, w, s, f int) int { return ((t*nw+w)*ns+s)*nf + f }
	for i, p := range pts { // sweep order: SRAM, FSMs, workload, topology
		t := i % nt
		w := (i / nt) % nw
		f := (i / nt / nw) % nf
		sz := i / nt / nw / nf
		runs[idx(t, w, sz, f)] = Fig9aRun{Topo: o.Topos[t], Workload: o.Workloads[w], SRAM: o.SRAM[sz], FSMs: o.FSMs[f], Cycles: p.Systems[0].TotalCycles}
	}
	res := &Fig9aResult{BaseSRAM: o.BaseSRAM, BaseFSMs: o.BaseFSMs}
	for t := 0; t < nt; t++ {
		for w := 0; w < nw; w++ {
			base := runs[idx(t, w, bi, bj)].Cycles
			for s := 0; s < ns; s++ {
				for f := 0; f < nf; f++ {
					r := &runs[idx(t, w, s, f)]
					r.Perf = float64(base) / float64(r.Cycles)
				}
			}
		}
	}
	cell := make([][]float64, ns)
	for s := range cell {
		cell[s] = make([]float64, nf)
		for f := range cell[s] {
			sum := 0.0
			for t := 0; t < nt; t++ {
				for w := 0; w < nw; w++ {
					sum += runs[idx(t, w, s, f)].Perf
				}
			}
			cell[s][f] = sum / float64(nt*nw)
			res.Cells = append(res.Cells, Fig9aCell{SRAM: o.SRAM[s], FSMs: o.FSMs[f], Perf: cell[s][f]})
		}
	}
	for s := 0; s < ns; s++ {
		for f := 0; f < nf; f++ {
			for _, n := range [][2]int{{s + 1, f}, {s, f + 1}} {
				if n[0] >= ns || n[1] >= nf {
					continue
				}
				if loss := 1 - cell[n[0]][n[1]]/cell[s][f]; loss > res.WorstStep {
					res.WorstStep = loss
					from, to := res.Cells[s*nf+f], res.Cells[n[0]*nf+n[1]]
					res.WorstFrom, res.WorstTo = &from, &to
				}
			}
		}
	}
	res.Runs = runs
	return res, nil
}
