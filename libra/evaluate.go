package libra

import (
	"fmt"
	"math"
)

// Layer is one layer, or one tensor group, in backward order: Compute is
// b, its backward computation's time alone (an integer count of the
// model's time unit, so that chunk edges compare exactly), Grad is c, its
// gradient bytes.
type Layer struct {
	Compute int64
	Grad    int64
}

// Stage is one stage of the backward pass (LIBRA, §III-B): t_o, t_b and
// t_c of Eq (12)–(13), and s_b of the next stage, Eq (15).
type Stage struct {
	Overlap, Compute, Comm float64
	Left                   float64
}

// Breakdown is the backward time of K groups under one allocation, Eq (7),
// with its K+1 stages (stage 0 is the first group's computation alone).
type Breakdown struct {
	Total  float64
	Stages []Stage
}

// Evaluate returns the backward time of groups (in backward order) whose
// all-reduces run with threads[i] threads, each started as soon as its
// gradients exist and the one before it is done: Eq (12)–(15), the time
// T-hat that Theorem 1 bounds.
func Evaluate(m *Model, groups []Layer, threads []int) (Breakdown, error) {
	if len(groups) == 0 {
		return Breakdown{}, fmt.Errorf("no tensor groups: give at least one")
	}
	if len(threads) != len(groups) {
		return Breakdown{}, fmt.Errorf("%d thread counts for %d tensor groups: give one per group", len(threads), len(groups))
	}
	total, _, err := sums(groups)
	if err != nil {
		return Breakdown{}, err
	}
	k := len(groups)
	// rest[i] = Σ_{j=i+1}^{K} b_j (1-based), the computation left when group i's is done.
	rest := make([]float64, k+2)
	for i := k - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + float64(groups[i].Compute)
	}
	s := float64(total) // s_b^0
	b := Breakdown{Stages: make([]Stage, 0, k+1)}
	first := s - rest[1] // stage 0: t_b^0 = b_1 (Eq (13) with ŝ^0 = s_b^0)
	b.Stages = append(b.Stages, Stage{Compute: first, Left: rest[1]})
	s = rest[1]
	b.Total = first
	for i := 1; i <= k; i++ {
		o, err := m.Overlap(groups[i-1].Grad, s, threads[i-1])
		if err != nil {
			return Breakdown{}, fmt.Errorf("tensor group %d: %w", i, err)
		}
		shat := o.ComputeLeft // Eq (14)
		tb := shat - rest[i+1]
		if tb < Eps*float64(total) { // Eq (13), a sliver below the tolerance is none
			tb = 0
		}
		s = shat - tb // Eq (15)
		st := Stage{Overlap: o.Time, Compute: tb, Comm: o.CommLeft, Left: s}
		b.Stages = append(b.Stages, st)
		b.Total += st.Overlap + st.Compute + st.Comm
	}
	if math.IsNaN(b.Total) || math.IsInf(b.Total, 0) {
		return Breakdown{}, fmt.Errorf("backward time %v is not finite; check the contention curves", b.Total)
	}
	return b, nil
}

// sums checks sizes and returns the total computation and gradient bytes.
func sums(layers []Layer) (compute, grad int64, err error) {
	for i, l := range layers {
		if l.Compute < 0 || l.Grad < 0 {
			return 0, 0, fmt.Errorf("layer %d: compute %d and gradient %d must be ≥ 0", i+1, l.Compute, l.Grad)
		}
		if compute > math.MaxInt64-l.Compute || grad > math.MaxInt64-l.Grad {
			return 0, 0, fmt.Errorf("layer %d: the sums of compute or gradient sizes overflow 64 bits; use a coarser unit", i+1)
		}
		compute += l.Compute
		grad += l.Grad
	}
	return compute, grad, nil
}
