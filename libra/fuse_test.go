package libra

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFuseG2(t *testing.T) {
	// Layers as groupsG1's groups. The best of each contiguous partition
	// (TestEvaluateGoldens): {1},{2},{3} 419/36; {1},{2,3} 2193/196 at (1024,
	// 4096), the optimum; {1,2,3} 47/4; {1,2},{3} 545/44.
	// Z = 2, w = 4: {1} starts at edge 1 and overlaps 4 at 2048 (21/4, as in
	// TestAllocateG1), {2,3} at edge 2 alone, Q(5, 4096) = 9/4:
	// 4 + 21/4 + 9/4 = 23/2. As soon as possible the same: stage 1 is
	// g(6, 2048) = 8 > P(6) = 5, t_b = 6·3/8 = 9/4 (nothing after group 2),
	// 2 + 29/4 + 9/4 = 23/2.
	// K = 1: one group after all computation, 8 + Q(11, 4096) = 47/4.
	one := []Group{{First: 1, Last: 3, Threads: 4096, Start: -1}}
	best := []Group{{First: 1, Last: 1, Threads: 1024, Start: -1}, {First: 2, Last: 3, Threads: 4096, Start: -1}}
	for _, tc := range []struct {
		k, z   int
		time   float64
		groups []Group
		hat    float64
		empty  int
	}{
		{2, 4, 2193.0 / 196, best, 2193.0 / 196, 0},
		{2, 8, 2193.0 / 196, best, 2193.0 / 196, 0},
		{2, 32, 2193.0 / 196, best, 2193.0 / 196, 0},
		{3, 4, 2193.0 / 196, best, 2193.0 / 196, 1}, // one zero-cost empty group, dropped
		{4, 16, 2193.0 / 196, best, 2193.0 / 196, 2},
		{2, 2, 23.0 / 2, []Group{{First: 1, Last: 1, Threads: 2048, Start: -1}, {First: 2, Last: 3, Threads: 4096, Start: -1}}, 23.0 / 2, 0},
		{1, 1, 47.0 / 4, one, 47.0 / 4, 0},
		{1, 4, 47.0 / 4, one, 47.0 / 4, 0},
		{1, 150, 47.0 / 4, one, 47.0 / 4, 0},
	} {
		got, err := Fuse(modelM(), groupsG1, threadsM, tc.k, tc.z)
		require.NoError(t, err, "K = %d, Z = %d", tc.k, tc.z)
		require.InDelta(t, tc.time, got.Time, tol, "K = %d, Z = %d", tc.k, tc.z)
		require.InDelta(t, tc.hat, got.Hat.Total, tol, "K = %d, Z = %d", tc.k, tc.z)
		require.Equal(t, tc.empty, got.Empty, "K = %d, Z = %d", tc.k, tc.z)
		require.Len(t, got.Groups, len(tc.groups))
		for i, g := range got.Groups {
			g.Start = -1
			require.Equal(t, tc.groups[i], g, "K = %d, Z = %d", tc.k, tc.z)
		}
	}
}

func TestFuseOrdering(t *testing.T) {
	// The ordering the contention-free reference sets (G3): contention-free per
	// layer 19/2 < LIBRA's co-optimisation 2193/196 < the allocation alone on
	// per-layer groups 419/36 < most threads on per-layer groups 51/4. The
	// co-optimisation is 1 − (2193/196)/(419/36) = 3.87 % below the
	// allocation alone and 1 − (2193/196)/(47/4) = 4.78 % below one group.
	cf, err := Fuse(modelCF(), groupsG1, threadsM, 3, 8)
	require.NoError(t, err)
	co, err := Fuse(modelM(), groupsG1, threadsM, 3, 8)
	require.NoError(t, err)
	alloc, err := Allocate(modelM(), groupsG1, threadsM, 8)
	require.NoError(t, err)
	most, err := Evaluate(modelM(), groupsG1, []int{4096, 4096, 4096})
	require.NoError(t, err)
	require.InDelta(t, 19.0/2, cf.Hat.Total, tol)
	require.Less(t, cf.Hat.Total, co.Hat.Total)
	require.Less(t, co.Hat.Total, alloc.Hat.Total)
	require.Less(t, alloc.Hat.Total, most.Total)
	require.InDelta(t, 0.0387, 1-co.Hat.Total/alloc.Hat.Total, 5e-5)
	require.InDelta(t, 0.0478, 1-co.Hat.Total/(47.0/4), 5e-5)
	// And 1 − (2193/196)/(51/4) = 12.2 % below most threads on per-layer groups.
	require.InDelta(t, 0.1224, 1-co.Hat.Total/most.Total, 5e-5)
}

// partitions calls f with every contiguous partition of n layers into at
// most k groups, as the index after each group's last layer.
func partitions(n, k int, f func(ends []int)) {
	var walk func(start int, ends []int)
	walk = func(start int, ends []int) {
		if start == n {
			f(ends)
			return
		}
		if len(ends) == k {
			return
		}
		for end := start + 1; end <= n; end++ {
			walk(end, append(ends, end))
		}
	}
	walk(0, nil)
}

// TestFuseBound checks the co-optimisation against brute force over every
// partition into at most K groups and every allocation: T* ≤ T-hat ≤
// T(K, L, Z) ≤ T* + (min(K, L) − 1)·w, the bound of Theorem 2's proof
// applied to the best plan with at most K groups.
func TestFuseBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 23))
	for n := 0; n < 250; n++ {
		m, layers, r, z := randomInstance(rng, []int{1, 2, 3, 5, 8})
		nl, k := len(layers), 1+rng.IntN(4)
		got, err := Fuse(m, layers, r, k, z)
		require.NoError(t, err)
		opt := math.Inf(1)
		partitions(nl, k, func(ends []int) {
			groups := make([]Layer, len(ends))
			first := 0
			for g, end := range ends {
				for _, l := range layers[first:end] {
					groups[g].Compute += l.Compute
					groups[g].Grad += l.Grad
				}
				first = end
			}
			opt = min(opt, bruteForce(t, m, groups, r))
		})
		total, _, _ := sums(layers)
		w := float64(total) / float64(z)
		const slack = 1e-9
		require.LessOrEqual(t, opt, got.Hat.Total+slack, "case %d: T* ≤ T-hat", n)
		require.LessOrEqual(t, got.Hat.Total, got.Time+slack, "case %d: T-hat ≤ T(K,L,Z)", n)
		require.LessOrEqual(t, got.Time, opt+float64(min(k, nl)-1)*w+slack, "case %d: T(K,L,Z) ≤ T* + (K−1)w", n)
		require.LessOrEqual(t, len(got.Groups), k)
		require.Equal(t, k, len(got.Groups)+got.Empty)
		last := 0
		for _, g := range got.Groups { // contiguous, in order, covering every layer
			require.Equal(t, last+1, g.First)
			require.GreaterOrEqual(t, g.Last, g.First)
			last = g.Last
		}
		require.Equal(t, nl, last)
	}
}

func TestFuseOneGroupIsAllocate(t *testing.T) {
	// K = 1 fuses every layer into one group: the fixed-plan programme on that
	// group gives the same time and threads.
	rng := rand.New(rand.NewPCG(7, 7))
	for n := 0; n < 50; n++ {
		m := randomModel(rng, threadsM)
		layers := randomGroups(rng, 1+rng.IntN(5))
		var one Layer
		for _, l := range layers {
			one.Compute += l.Compute
			one.Grad += l.Grad
		}
		z := 1 + rng.IntN(12)
		f, err := Fuse(m, layers, threadsM, 1, z)
		require.NoError(t, err)
		a, err := Allocate(m, []Layer{one}, threadsM, z)
		require.NoError(t, err)
		require.InDelta(t, a.Time, f.Time, tol)
		require.Equal(t, a.Threads[0], f.Groups[0].Threads)
	}
}

func TestFuseErrors(t *testing.T) {
	m := modelM()
	for _, tc := range []struct {
		layers  []Layer
		threads []int
		k, z    int
		want    string
	}{
		{nil, threadsM, 2, 4, "no layers"},
		{groupsG1, threadsM, 0, 4, "K = 0 tensor groups"},
		{groupsG1, nil, 2, 4, "empty thread set R"},
		{groupsG1, []int{-1}, 2, 4, "thread set R holds -1"},
		{groupsG1, threadsM, 2, -3, "Z = -3 chunks"},
		{groupsG1, threadsM, 1 << 20, 1 << 10, "too large a table"},
		{[]Layer{{0, 0}}, threadsM, 1, 4, "total computation 0"},
		{[]Layer{{1, -4}}, threadsM, 1, 4, "gradient -4"},
		{groupsG1, []int{1024, 512}, 2, 4, "layers 1..1 as one group: p(6, 512): no rate at 512 threads"},
	} {
		_, err := Fuse(m, tc.layers, tc.threads, tc.k, tc.z)
		require.ErrorContains(t, err, tc.want)
	}
}
