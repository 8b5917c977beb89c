package libra

import (
	"fmt"
	"math"
)

// maxCells bounds a dynamic programme's table (entries of T), so that a
// mistyped K, L or Z is an error rather than an exhausted memory.
const maxCells = 1 << 26

// Allocation is the result of the thread-allocation programme for a fixed
// fusion plan (LIBRA, §IV-A).
type Allocation struct {
	// Time is T(K, Z) of Eq (17): the best backward time when every
	// all-reduce starts at a chunk edge.
	Time float64
	// Threads is the allocation (r_i*), one per group, from backtracking.
	Threads []int
	// Starts holds the chunk edge z' at which each group's all-reduce
	// starts in the programme's schedule.
	Starts []int
	// Hat is T-hat(K, Z): Threads evaluated with every all-reduce started as
	// soon as possible (Evaluate); Theorem 1 bounds it.
	Hat Breakdown
}

// chunks is the discretisation of Fig. 4: the total computation in Z
// chunks of size w = total/Z, edges compared in integers.
type chunks struct {
	z     int
	total int64
	size  []float64 // size[d] = d·w, the computation of d chunks
}

func newChunks(total int64, z int) (chunks, error) {
	if z < 1 {
		return chunks{}, fmt.Errorf("Z = %d chunks: the computation must be cut into at least one", z)
	}
	if z > maxCells {
		return chunks{}, fmt.Errorf("Z = %d chunks is too many (at most %d); the paper uses 150", z, maxCells)
	}
	if total <= 0 {
		return chunks{}, fmt.Errorf("total computation %d: chunks need a positive amount of computation", total)
	}
	if total > math.MaxInt64/int64(z) {
		return chunks{}, fmt.Errorf("Z = %d chunks of %d: Z × total computation overflows 64 bits; use a coarser unit or a smaller Z", z, total)
	}
	c := chunks{z: z, total: total, size: make([]float64, z+1)}
	for d := range c.size {
		c.size[d] = float64(int64(d)*total) / float64(z)
	}
	return c, nil
}

// minChunk is GetMinChunkID of Algorithm 1: the smallest id ≥ 1 with
// id·w ≥ done, i.e. id·total ≥ Z·done, exactly.
func (c chunks) minChunk(done int64) int {
	id := (int64(c.z)*done + c.total - 1) / c.total
	return max(1, int(id))
}

// stageTable holds h of Eq (19) for one all-reduce, by the number of
// chunks d = z − z' it overlaps and the thread index j: mid[d*J+j] for a
// stage that ends before the computation does (z < Z; +Inf where
// communication would be left over), last[d*J+j] for the one that ends it.
type stageTable struct {
	mid, last []float64
}

func (c chunks) table(m *Model, grad int64, threads []int, t *stageTable) error {
	j := len(threads)
	n := (c.z + 1) * j
	if cap(t.mid) < n {
		t.mid, t.last = make([]float64, n), make([]float64, n)
	}
	t.mid, t.last = t.mid[:n], t.last[:n]
	for d := 0; d <= c.z; d++ {
		for k, r := range threads {
			o, err := m.Overlap(grad, c.size[d], r) // Eq (18)
			if err != nil {
				return err
			}
			h := o.Time + o.ComputeLeft + o.CommLeft
			t.last[d*j+k] = h
			if o.CommLeft > 0 { // Eq (19): δ_c ≥ Eps
				h = math.Inf(1)
			}
			t.mid[d*j+k] = h
		}
	}
	return nil
}

// relax folds one all-reduce's stages into a row of a programme's table:
// for every end edge z ≥ zmin, cur[z] becomes the best of itself and
// prev[z'] + h(z − z', j) over z' = zmin..z and j, in that order, the
// first minimum winning (better); log[z] records the winner as
// tag + z'·J + j.
func (t *stageTable) relax(prev, cur []float64, log []int32, zmin int, tag int32) {
	z := len(cur) - 1
	j := len(t.mid) / len(cur)
	for q := zmin; q <= z; q++ {
		h := t.mid
		if q == z {
			h = t.last
		}
		best, arg := cur[q], log[q]
		for p := zmin; p <= q; p++ {
			base := prev[p]
			if math.IsInf(base, 1) {
				continue
			}
			for x, hv := range h[(q-p)*j : (q-p+1)*j] {
				if v := base + hv; better(v, best) {
					best, arg = v, tag+int32(p*j+x)
				}
			}
		}
		cur[q], log[q] = best, arg
	}
}

// better is the programmes' comparison: t replaces best only when shorter
// by more than Eps of best, so the first minimum wins.
func better(t, best float64) bool {
	if math.IsInf(best, 1) {
		return t < best
	}
	return t < best-Eps*best
}

// setup checks the set R of thread counts and the sizes, and cuts the
// computation into z chunks.
func setup(layers []Layer, threads []int, z int) (chunks, error) {
	if err := checkThreads(threads); err != nil {
		return chunks{}, err
	}
	total, _, err := sums(layers)
	if err != nil {
		return chunks{}, err
	}
	return newChunks(total, z)
}

// start returns a programme's table of n entries: T = z·w for the first
// Z+1 (stage 0, computation alone: T(0, z), or T(0, 0, z) in Algorithm 1),
// +Inf elsewhere.
func (c chunks) start(n int) []float64 {
	t := make([]float64, n)
	for i := range t {
		t[i] = math.Inf(1)
	}
	copy(t, c.size)
	return t
}

// checkThreads checks the set R of thread counts.
func checkThreads(threads []int) error {
	if len(threads) == 0 {
		return fmt.Errorf("empty thread set R: give at least one thread count (the paper's is 128, 256, …, 4096)")
	}
	seen := map[int]bool{}
	for _, r := range threads {
		if r <= 0 {
			return fmt.Errorf("thread set R holds %d: thread counts must be > 0", r)
		}
		if seen[r] {
			return fmt.Errorf("thread set R holds %d twice: list each thread count once", r)
		}
		seen[r] = true
	}
	return nil
}

// Allocate is the dynamic programme of Eq (17)–(19) (LIBRA, §IV-A): the
// allocation from threads (the set R) for a fixed fusion plan groups (in
// backward order), with the computation cut into z chunks. Time
// O(K·Z²·J), space O(K·Z).
func Allocate(m *Model, groups []Layer, threads []int, z int) (Allocation, error) {
	if len(groups) == 0 {
		return Allocation{}, fmt.Errorf("no tensor groups: give at least one")
	}
	ch, err := setup(groups, threads, z)
	if err != nil {
		return Allocation{}, err
	}
	k, j := len(groups), len(threads)
	if (k+1)*(z+1) > maxCells || (z+1)*j > math.MaxInt32 {
		return Allocation{}, fmt.Errorf("K = %d groups × Z = %d chunks × J = %d thread counts is too large a table; use a smaller Z", k, z, j)
	}
	row := z + 1
	tt := ch.start((k + 1) * row)    // T(i, z) at tt[i*row+z]
	from := make([]int32, (k+1)*row) // z'*J + j of the best candidate
	var tab stageTable
	var done int64
	for i := 1; i <= k; i++ {
		done += groups[i-1].Compute // n(i)
		if err := ch.table(m, groups[i-1].Grad, threads, &tab); err != nil {
			return Allocation{}, fmt.Errorf("tensor group %d: %w", i, err)
		}
		prev, cur := tt[(i-1)*row:i*row], tt[i*row:(i+1)*row]
		tab.relax(prev, cur, from[i*row:(i+1)*row], ch.minChunk(done), 0)
	}
	a := Allocation{Time: tt[k*row+z], Threads: make([]int, k), Starts: make([]int, k)}
	if math.IsInf(a.Time, 1) {
		return Allocation{}, fmt.Errorf("no schedule of %d groups in %d chunks; this is a bug", k, z)
	}
	q := z
	for i := k; i >= 1; i-- {
		arg := int(from[i*row+q])
		a.Threads[i-1], a.Starts[i-1] = threads[arg%j], arg/j
		q = arg / j
	}
	if a.Hat, err = Evaluate(m, groups, a.Threads); err != nil {
		return Allocation{}, err
	}
	return a, nil
}
