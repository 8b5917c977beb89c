package reproduce

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The α-β model's bandwidth terms (α = 0) for the BlueConnect paper's
// Fig. 1 fabric, p = (3,2,2), w = (32, 12.5, 25) GB/s, N = 100 MB, by hand:
//
//	Eq. (3) one-level  2·(11/12)·N/w1                           = 2·(11/12)·8 ms        = 14.667 ms
//	Eq. (4) two-level  4·(2/3)·N/w0 + 2·(3/4)·N/w1              = 8.333 + 12            = 20.333 ms
//	Eq. (6) BLC        2[(2/3)·N/w0 + (N/3)(1/2)/(w1/3) + (N/6)(1/2)/min(w1/3, w2/6)]
//	                   = 2[2.083 + 4 + 2]                                               = 16.167 ms
//
// (w1/3 = w2/6 = 4.1667 GB/s.) And for the paper's 192 GPUs, p = (4,16,3),
// with the fat-tree rule w2 = 16·w1 = 200 GB/s: one-level 2·(191/192)·8 =
// 15.917 ms; two-level 4·(3/4)·3.125 + 2·(47/48)·8 = 9.375 + 15.667 =
// 25.042 ms; BLC 2[(3/4)·3.125 + (15/16)(25 MB)/(3.125 GB/s) + (2/3)(1.5625
// MB)/min(3.125, 200/64 = 3.125)] = 2[2.34375 + 7.5 + 0.33333] = 20.354 ms.
func TestBlueConnectModelByHand(t *testing.T) {
	const n = 100e6
	tests := []struct {
		name          string
		fanout        []int
		w             []float64 // GB/s
		one, two, blc float64   // ms
	}{
		{"Fig. 1 (3,2,2)", []int{3, 2, 2}, []float64{32, 12.5, 25}, 14.666667, 20.333333, 16.166667},
		{"192 GPUs (4,16,3)", []int{4, 16, 3}, []float64{32, 12.5, 200}, 15.916667, 25.041667, 20.354167},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := make([]float64, len(tc.w))
			for i, x := range tc.w {
				w[i] = x * 1e9
			}
			assert.InDelta(t, tc.one, ModelOneLevel(tc.fanout, n, w)*1e3, 1e-5)
			assert.InDelta(t, tc.two, ModelTwoLevel(tc.fanout, n, w)*1e3, 1e-5)
			assert.InDelta(t, tc.blc, ModelBlueConnect(tc.fanout, n, w)*1e3, 1e-5)
		})
	}
}

// The tiers' bandwidths: 32 GB/s inside a node, 12.5 GB/s (100 Gbps) a
// node's uplink, then each uplink the sum of those under it: Fig. 1's
// w2 = 2·12.5 = 25 GB/s; the 192-GPU cluster's racks 16·12.5 = 200 GB/s.
func TestBlueConnectBandwidthsRule(t *testing.T) {
	assert.Equal(t, []float64{32}, BlueConnectBandwidths([]int{4}))
	assert.Equal(t, []float64{32, 12.5, 25}, BlueConnectBandwidths([]int{3, 2, 2}))
	assert.Equal(t, []float64{32, 12.5, 200}, BlueConnectBandwidths([]int{4, 16, 3}))
}

// The sweep at --quick's 1 MB on small fabrics: a row per fabric, every
// scheme timed, and BlueConnect never slower than two-level, which moves
// more bytes (2.5 N against 1.83 N per NPU on (3,2,2)) and pushes the
// whole N over the slow tier. On one tier (switch:4) two-level still
// reduces to a master and broadcasts (Eq. (4)), twice BlueConnect's
// traffic inside the node.
func TestBlueConnectQuickSweep(t *testing.T) {
	o := QuickBlueConnect()
	o.Fabrics = []string{"switch:4", "switch:4x2", "switch:3x2x2"}
	r, err := BlueConnect(o)
	require.NoError(t, err)
	require.Len(t, r.Rows, 3)
	for _, row := range r.Rows {
		require.Len(t, row.Ms, len(BlueConnectAlgorithms), row.Fabric)
		for _, v := range row.Ms {
			require.Positive(t, v, row.Fabric)
		}
		assert.Less(t, row.Ms[2], row.Ms[1], "%s: BlueConnect before two-level", row.Fabric)
	}
	assert.Equal(t, 12, r.Rows[2].NPUs)
	_, ok := r.Headline()
	assert.False(t, ok, "no 192-GPU row in this sweep")
}

// The sweep's results do not depend on how many runs go at once.
func TestBlueConnectSameOnAnyWorkers(t *testing.T) {
	var got []*BlueConnectResult
	for _, w := range []int{1, 3} {
		o := QuickBlueConnect()
		o.Fabrics, o.Size, o.Workers = []string{"switch:4x2", "switch:3x2x2"}, 100_000, w
		r, err := BlueConnect(o)
		require.NoError(t, err)
		got = append(got, r)
	}
	require.Equal(t, got[0], got[1])
}

func TestBlueConnectRefusesATorus(t *testing.T) {
	o := QuickBlueConnect()
	o.Fabrics = []string{"4x4x4"}
	_, err := BlueConnect(o)
	require.ErrorContains(t, err, "tiers of a switch fabric")
}
