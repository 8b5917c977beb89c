package libra

import (
	"fmt"
	"math"
)

// Group is one tensor group of a fusion plan: layers First..Last (1-based,
// in backward order, inclusive) fused into one all-reduce run with Threads
// threads, started at chunk edge Start in the programme's schedule.
type Group struct {
	First, Last int
	Threads     int
	Start       int
}

// Plan is the result of the co-optimisation of thread allocation and
// tensor fusion (LIBRA, §IV-B).
type Plan struct {
	// Time is T(K, L, Z) of Eq (23): the best backward time with at most K
	// groups when every all-reduce starts at a chunk edge.
	Time float64
	// Groups are the non-empty groups from backtracking, in backward order.
	Groups []Group
	// Empty counts the empty groups (l' = l) the backtracking dropped.
	Empty int
	// Hat is the plan evaluated with every all-reduce started as soon as
	// possible (Evaluate).
	Hat Breakdown
}

// Fuse is Algorithm 1, the dynamic programme of Eq (23) (LIBRA, §IV-B2):
// the fusion of layers (in backward order) into at most k contiguous
// groups and each group's threads from the set R, the computation cut into
// z chunks. With k = len(layers) it is Eq (21), groups unlimited. Time
// O(K·L²·Z²·J), space O(K·L·Z).
func Fuse(m *Model, layers []Layer, threads []int, k, z int) (Plan, error) {
	nl := len(layers)
	if nl == 0 {
		return Plan{}, fmt.Errorf("no layers: give at least one")
	}
	if k < 1 {
		return Plan{}, fmt.Errorf("K = %d tensor groups: allow at least one (the paper uses 10)", k)
	}
	ch, err := setup(layers, threads, z)
	if err != nil {
		return Plan{}, err
	}
	j := len(threads)
	row := z + 1
	plane := (nl + 1) * row
	if nl > maxCells || plane > maxCells || k+1 > maxCells/plane || plane*j > math.MaxInt32 {
		return Plan{}, fmt.Errorf("K = %d groups × L = %d layers × Z = %d chunks × J = %d is too large a table; use a smaller K or Z", k, nl, z, j)
	}
	done := make([]int64, nl+1) // n(l)
	grad := make([]int64, nl+1) // Σ_{i≤l} c_i
	for l := 1; l <= nl; l++ {
		done[l] = done[l-1] + layers[l-1].Compute
		grad[l] = grad[l-1] + layers[l-1].Grad
	}
	tt := ch.start((k + 1) * plane)    // T(i, l, z) at tt[i*plane+l*row+z]
	from := make([]int32, (k+1)*plane) // l'·(Z+1)·J + z'·J + j of the best candidate
	var tab stageTable
	for l := 1; l <= nl; l++ {
		zmin := ch.minChunk(done[l])
		// Candidates are visited l' outermost, then z', then j, the order of
		// Algorithm 1, so the first minimum wins as there; l' = l (an empty
		// group) reads T(i−1, l, ·), finished for i−1 before i.
		for lp := 0; lp <= l; lp++ {
			if err := ch.table(m, grad[l]-grad[lp], threads, &tab); err != nil {
				return Plan{}, fmt.Errorf("layers %d..%d as one group: %w", lp+1, l, err)
			}
			for i := 1; i <= k; i++ {
				prev := tt[(i-1)*plane+lp*row : (i-1)*plane+(lp+1)*row]
				cur := tt[i*plane+l*row : i*plane+(l+1)*row]
				tab.relax(prev, cur, from[i*plane+l*row:i*plane+(l+1)*row], zmin, int32(lp*row*j))
			}
		}
	}
	p := Plan{Time: tt[k*plane+nl*row+z]}
	if math.IsInf(p.Time, 1) {
		return Plan{}, fmt.Errorf("no plan of %d layers in %d chunks; this is a bug", nl, z)
	}
	l, q := nl, z
	for i := k; i >= 1; i-- {
		arg := int(from[i*plane+l*row+q])
		x, rest := arg%j, arg/j
		lp, zp := rest/row, rest%row
		if lp == l {
			p.Empty++
		} else {
			p.Groups = append(p.Groups, Group{First: lp + 1, Last: l, Threads: threads[x], Start: zp})
		}
		l, q = lp, zp
	}
	for a, b := 0, len(p.Groups)-1; a < b; a, b = a+1, b-1 {
		p.Groups[a], p.Groups[b] = p.Groups[b], p.Groups[a]
	}
	groups := make([]Layer, len(p.Groups))
	alloc := make([]int, len(p.Groups))
	for g, gr := range p.Groups {
		groups[g] = Layer{Compute: done[gr.Last] - done[gr.First-1], Grad: grad[gr.Last] - grad[gr.First-1]}
		alloc[g] = gr.Threads
	}
	if p.Hat, err = Evaluate(m, groups, alloc); err != nil {
		return Plan{}, err
	}
	return p, nil
}
