package main

import (
	"fmt"
	"strings"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/workload"
	"github.com/acemu/acemu/workload/models"
)

// peakMs is how long flops FLOPs take at Table V's peak, in ms.
func peakMs(flops int64) float64 { return float64(flops) / npu.PeakFLOPS * 1e3 }

// perIteration sums, over one training iteration of n layers, what each
// layer's passes give: every forward and weight-gradient pass and every
// input-gradient pass but layer 0's (the training loop runs none below
// layer 0).
func perIteration(n int, pass func(i int) (fwd, inGrad, wtGrad int64)) int64 {
	var sum int64
	for i := 0; i < n; i++ {
		f, in, wt := pass(i)
		sum += f + wt
		if i > 0 {
			sum += in
		}
	}
	return sum
}

// iterationFLOPs is the FLOPs of one training iteration of w's roofline
// work.
func iterationFLOPs(w *workload.Workload) int64 {
	return perIteration(len(w.Layers), func(i int) (int64, int64, int64) {
		l := &w.Layers[i]
		return l.Fwd.FLOPs, l.InGrad.FLOPs, l.WtGrad.FLOPs
	})
}

// iterationMs is the time one training iteration of w's timed work takes
// on the whole NPU, as its file gives it, in ms (no update delays).
func iterationMs(w *workload.Workload) float64 {
	if w.CycleHz == 0 {
		return 0
	}
	c := perIteration(len(w.Layers), func(i int) (int64, int64, int64) {
		l := &w.Layers[i]
		return l.Fwd.Cycles, l.InGrad.Cycles, l.WtGrad.Cycles
	})
	return float64(c) / float64(w.CycleHz) * 1e3
}

// regimeLine says in one line where a run's compute comes from
// (docs/workloads.md, "Compute regimes").
func regimeLine(w *workload.Workload) string {
	switch w.Compute {
	case workload.ComputePaper:
		file, _ := workload.PaperFile(w.Name)
		s := fmt.Sprintf("Compute: the paper's regime (--compute %s): per-layer times of ASTRA-sim 1.0's %s, the paper's simulator, %.3g ms per iteration on the whole NPU", workload.ComputePaper, file, iterationMs(w))
		if w.Batch == 0 {
			return s + "; a smaller model than the roofline's, its batch not stated, its times at the ridge (docs/workloads.md)"
		}
		s += fmt.Sprintf(", %d image per NPU", w.Batch)
		if b, err := models.Batch(w.Name); err == nil {
			if shapes, err := models.Layers(w.Name, 0); err == nil {
				f := perIteration(len(shapes), func(i int) (int64, int64, int64) {
					return shapes[i].Fwd.FLOPs, shapes[i].InGrad.FLOPs, shapes[i].WtGrad.FLOPs
				})
				s += fmt.Sprintf("; batch %d, as Section V states, would take ≥ %.1f ms on Table V's NPU (--compute %s)", b, peakMs(f), workload.ComputeRoofline)
			}
		}
		return s
	case workload.ComputeRoofline:
		return fmt.Sprintf("Compute: Table V's roofline (--compute %s) at batch %d per NPU, ≥ %.2f ms per iteration at the 120 TFLOPS peak", workload.ComputeRoofline, w.Batch, peakMs(iterationFLOPs(w)))
	}
	if w.CycleHz == 0 {
		return fmt.Sprintf("Compute: the workload's FLOPs and bytes on Table V's roofline, ≥ %.2f ms per iteration at the peak", peakMs(iterationFLOPs(w)))
	}
	s := fmt.Sprintf("Compute: the file's times, %.2f ms per iteration on the whole NPU", iterationMs(w))
	if w.Shapes != "" {
		return s + fmt.Sprintf("; which resource each waits on from %s's shapes at batch %d (docs/astrasim-workloads.md)", w.Shapes, w.Batch)
	}
	return s + "; no layer shapes: each time slows by the resource cut most (docs/astrasim-workloads.md)"
}

// otherRegime is the built-in workload w in the other compute regime, or
// nil when it has none (a file, GNMT).
func otherRegime(w *workload.Workload) (*workload.Workload, error) {
	if _, ok := workload.PaperFile(w.Name); !ok {
		return nil, nil
	}
	switch w.Compute {
	case workload.ComputePaper:
		return workload.Resolve(w.Name, workload.ComputeRoofline, 0)
	case workload.ComputeRoofline:
		return workload.Resolve(w.Name, workload.ComputePaper, 0)
	}
	return nil, nil
}

// regimeSummary is the one line the main job prints for the other regime:
// ACE's % of the ideal and its speed-up over each other system.
func regimeSummary(w *workload.Workload, rep *compare.Report) string {
	what := "paper's regime"
	if w.Compute == workload.ComputeRoofline {
		what = fmt.Sprintf("roofline at batch %d", w.Batch)
	}
	var parts []string
	for _, r := range rep.Systems {
		if r.Name == "ace" && r.FractionOfIdeal != nil {
			parts = append(parts, fmt.Sprintf("ACE %s %% of ideal", pctOf(r.FractionOfIdeal)))
		}
	}
	for _, r := range rep.Systems {
		if v, ok := rep.SpeedupOfACE[r.Name]; ok && r.Name != "ideal" {
			parts = append(parts, fmt.Sprintf("%.2f× over %s", v, r.Name))
		}
	}
	ideal := ""
	for _, r := range rep.Systems {
		if r.Name == "ideal" {
			ideal = fmt.Sprintf(", ideal compute %.2f ms per iteration", r.ComputeCycles/float64(npu.ClockHz)*1e3)
		}
	}
	return fmt.Sprintf("The %s (--compute %s%s): %s. ACE's gain follows the ratio of communication to compute.", what, w.Compute, ideal, strings.Join(parts, ", "))
}
