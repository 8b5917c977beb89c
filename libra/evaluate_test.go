package libra

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// groupsG1 is the three-group instance of the golden tests, in backward
// order: b = [2, 4, 2] ms, c = [6, 3, 2] bytes (times ms in modelM).
var groupsG1 = []Layer{{2, 6}, {4, 3}, {2, 2}}

func TestEvaluateStagesG1(t *testing.T) {
	// The optimum over R³, (2048, 2048, 4096), stage by stage:
	// 0: group 1 alone, t_b = 2, s = 6.
	// 1: g(6, 2048) = 8 > P(6) = 1 + 6/(3/2) = 5: t_o = 5, ŝ = 6·3/8 = 9/4,
	//    t_b = 9/4 − b_3 = 1/4, s = 2.
	// 2: g(2, 2048) = 8/3 < P(3) = 1 + 2 = 3: t_o = 8/3, δ_c = 1/9,
	//    t_c = Q(3)·δ_c = (1 + 1)/9 = 2/9, s = 0.
	// 3: alone, Q(2, 4096) = 1 + 2/4 = 3/2.
	// Total 2 + 21/4 + 26/9 + 3/2 = 419/36.
	got, err := Evaluate(modelM(), groupsG1, []int{2048, 2048, 4096})
	require.NoError(t, err)
	want := []Stage{
		{0, 2, 0, 6},
		{5, 1.0 / 4, 0, 2},
		{8.0 / 3, 0, 2.0 / 9, 0},
		{0, 0, 3.0 / 2, 0},
	}
	require.Len(t, got.Stages, len(want))
	for i, w := range want {
		g := got.Stages[i]
		require.InDelta(t, w.Overlap, g.Overlap, tol, "stage %d", i)
		require.InDelta(t, w.Compute, g.Compute, tol, "stage %d", i)
		require.InDelta(t, w.Comm, g.Comm, tol, "stage %d", i)
		require.InDelta(t, w.Left, g.Left, tol, "stage %d", i)
	}
	require.InDelta(t, 419.0/36, got.Total, tol)
}

func TestEvaluateGoldens(t *testing.T) {
	for _, tc := range []struct {
		name    string
		m       *Model
		groups  []Layer
		threads []int
		want    float64
	}{
		// Stage 1 as the optimum's (21/4); stage 2: g(2, 2048) = 8/3 < P(3) = 3,
		// t_o = 8/3, t_c = 2/9; stage 3: Q(2, 2048) = 1 + 2/3 = 5/3.
		// 2 + 21/4 + 26/9 + 5/3 = 425/36.
		{"G1 second best", modelM(), groupsG1, []int{2048, 2048, 2048}, 425.0 / 36},
		// Stage 1: g(6, 4096) = 12 > P(6) = 4: ŝ = 4, t_b = 4 − 2 = 2 (6);
		// stage 2: g(2) = 4 > P(3) = 5/2: ŝ = 3/4, t_b = 3/4 (13/4); stage 3: 3/2.
		// 2 + 6 + 13/4 + 3/2 = 51/4.
		{"G1 most threads", modelM(), groupsG1, []int{4096, 4096, 4096}, 51.0 / 4},
		// Stage 1: g(6, 1024) = 48/7 < P(6) = 7, t_c = Q(6)/49 = 4/49, s = 0;
		// stages 2, 3 alone: Q(3) = 5/2, Q(2) = 2.
		// 2 + 48/7 + 4/49 + 5/2 + 2 = 1317/98.
		{"G1 fewest threads", modelM(), groupsG1, []int{1024, 1024, 1024}, 1317.0 / 98},
		// Groups {1},{2,3}: b = [2, 6], c = [6, 5]. Stage 1 as above, 48/7 + 4/49;
		// stage 2 alone, Q(5, 4096) = 1 + 5/4 = 9/4. 2 + 340/49 + 9/4 = 2193/196.
		{"G2 optimum", modelM(), []Layer{{2, 6}, {6, 5}}, []int{1024, 4096}, 2193.0 / 196},
		// One group: all 8 computed, then Q(11, 4096) = 1 + 11/4. 8 + 15/4 = 47/4.
		{"G2 one group", modelM(), []Layer{{8, 11}}, []int{4096}, 47.0 / 4},
		// Groups {1,2},{3}: b = [6, 2], c = [9, 2]. Stage 1: g(2, 4096) = 4 <
		// P(9) = 11/2, δ_c = 3/11, t_c = (13/4)(3/11) = 39/44; stage 2: 3/2.
		// 6 + 4 + 39/44 + 3/2 = 545/44.
		{"G2 {1,2},{3}", modelM(), []Layer{{6, 9}, {2, 2}}, []int{4096, 4096}, 545.0 / 44},
		// Contention-free: ρ = 1, P = Q = 1 + c/4. Stage 1: g = 6 > P(6) = 5/2,
		// ŝ = 7/2, t_b = 3/2 (4); stage 2: g = 2 > P(3) = 7/4, t_b = 1/4 (2);
		// stage 3: 3/2. 2 + 4 + 2 + 3/2 = 19/2.
		{"G3 per layer", modelCF(), groupsG1, []int{4096, 4096, 4096}, 19.0 / 2},
		// {1},{2,3}: stage 1: g(6) = 6 > P(6) = 5/2, ŝ = 7/2, t_b = 7/2 (no group
		// after the second: Σ_{j=3}^{2} = 0), so 6; stage 2 alone, Q(5) = 9/4.
		// 2 + 6 + 9/4 = 41/4.
		{"G3 {1},{2,3}", modelCF(), []Layer{{2, 6}, {6, 5}}, []int{1024, 1024}, 41.0 / 4},
		{"G3 one group", modelCF(), []Layer{{8, 11}}, []int{2048}, 47.0 / 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Evaluate(tc.m, tc.groups, tc.threads)
			require.NoError(t, err)
			require.InDelta(t, tc.want, got.Total, tol)
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	m := modelM()
	for _, tc := range []struct {
		groups  []Layer
		threads []int
		want    string
	}{
		{nil, nil, "no tensor groups"},
		{groupsG1, []int{1024}, "1 thread counts for 3 tensor groups"},
		{[]Layer{{-1, 1}}, []int{1024}, "layer 1: compute -1"},
		{[]Layer{{1, -1}}, []int{1024}, "gradient -1"},
		{[]Layer{{1 << 62, 1}, {1 << 62, 1}}, []int{1024, 1024}, "overflow"},
		{groupsG1, []int{1024, 0, 1024}, "tensor group 2: 0 communication threads"},
	} {
		_, err := Evaluate(m, tc.groups, tc.threads)
		require.ErrorContains(t, err, tc.want)
	}
}
