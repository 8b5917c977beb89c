package reproduce

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/compare"
)

// The C-Cube comparison on dgx1, by hand. A one-shot double tree pipelines
// K = size/2/8 KiB pieces a tree over D = 4 hops (0 → 4 → (0) → 2 → 1, the
// detour two); a piece takes s = 8192 / (25 GB/s × 0.94 / 1245 MHz) =
// 8192 / 18.876 = 434 cycles on an NVLink and each hop adds its latency
// L = 500 cycles. Pieces stream store-and-forward, so the conventional
// tree's reduction ends after (K+D−1)·s + D·L and its broadcast takes as
// long again, and the overlapped tree's broadcast follows each piece:
//
//	B  = 2((K+D−1)·s + D·L)      1 MiB (K = 64): 62156   4 MiB (K = 256): 228812
//	C1 = (K+2D−1)·s + 2D·L       1 MiB:          34814   4 MiB:           118142
//
// acemu's runs (packets of 256 B, the routing's lanes) come within 3 % of
// these on the ideal endpoint and the baseline given the whole NPU; in
// 64 KiB chunks many in flight, B gains little from the overlap (under
// 5 %); the model's gain is the paper's step count.
func TestCCubeOneShotByHand(t *testing.T) {
	o := DefaultCCube()
	o.Sizes = []int64{1 << 20, 4 << 20}
	rows, err := CCube(o)
	require.NoError(t, err)
	require.Len(t, rows, 10)
	want := map[int64][2]float64{1 << 20: {62156, 34814}, 4 << 20: {228812, 118142}}
	for _, r := range rows {
		if r.Chunk == r.Size {
			w := want[r.Size]
			require.InEpsilon(t, w[0], float64(r.B), 0.03, "%+v: B", r)
			require.InEpsilon(t, w[1], float64(r.C1), 0.03, "%+v: C1", r)
			k := r.Size / 2 / 8192
			require.InDelta(t, float64(2*(4+k-1))/float64(2*4+k-1)-1, r.Model, 1e-12)
			continue
		}
		require.Zero(t, r.Model)
		require.Greater(t, r.Gain, 0.0, "%+v", r)
		if r.Endpoint != ACE {
			require.Less(t, r.Gain, 0.05, "%+v: chunks in flight fill the links B leaves idle", r)
		}
	}
}

// The C-Cube configurations train on dgx1 from a workload file:
// testdata/ccube_case1.txt is the layer profile of
// compare.TestCCubeConfigurationsOrderOnDGX1 (the paper's "Case 1": layer
// i forwards (6 − i) × 3000 ns and all-reduces i × 64 KiB), where on the
// baseline the steady state orders CC > C1 ≈ C2 > B; R is the NVLink
// ring. The rows come in the order of CCubeConfigs, each gain over its
// own system's B, and B's gain is zero.
func TestCCubeTrainingRows(t *testing.T) {
	rows, err := CCubeTraining(CCubeTrainingOptions{Workloads: []string{"../testdata/ccube_case1.txt"}, Systems: []string{"baseline-commopt"}})
	require.NoError(t, err)
	require.Len(t, rows, len(compare.CCubeConfigs))
	gain := map[string]float64{}
	for i, r := range rows {
		require.Equal(t, compare.CCubeConfigs[i].Name, r.Config)
		require.Equal(t, compare.CCubeConfigs[i].Whole, r.Whole)
		require.Positive(t, r.Cycles)
		gain[r.Config] = r.Gain
	}
	require.Zero(t, gain["B"])
	require.Greater(t, gain["C1"], 0.0)
	require.Greater(t, gain["C2"], 0.0)
	require.Greater(t, gain["CC"], gain["C1"])
	require.Greater(t, gain["CC"], gain["C2"])
}

// A size of one platform chunk or less has no chunked rows beside its
// one-shot ones (they would be the same runs): ideal, baseline, ACE.
func TestCCubeSmallSizeHasNoChunkedRows(t *testing.T) {
	o := DefaultCCube()
	o.Sizes = []int64{64 << 10}
	rows, err := CCube(o)
	require.NoError(t, err)
	var got []Endpoint
	for _, r := range rows {
		got = append(got, r.Endpoint)
		require.Equal(t, int64(64<<10), r.Chunk)
	}
	require.Equal(t, []Endpoint{Ideal, Baseline, ACE}, got)
}
