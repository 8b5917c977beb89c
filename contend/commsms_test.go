package contend

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// Compute follows the SMs a collective runs on (Comm.Follow): a kernel of
// 800 SM-cycles (800 cycles on all 80 SMs, no memory) beside a collective
// on the system's 6 SMs does 74/80 per cycle; at cycle 100 it has done
// 100 × 74/80 = 92.5 and 707.5 are left; the collective's SMs become 40
// then, so it does 40/80 per cycle and ends 707.5 × 2 = 1415 cycles later,
// at 1515. Without the change: 800 × 80/74 = 864.86…, so cycle 865.
func TestComputeFollowsTheCommunicationSMs(t *testing.T) {
	for _, tc := range []struct {
		name string
		to   int
		want rtl.Cycle
	}{
		{"no change", 6, 865},
		{"40 SMs from cycle 100", 40, 1515},
		// 92.5 done at 100; then 80/80: 707.5 more, 807.5, so cycle 808.
		{"none from cycle 100", 0, 808},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var applied [][2]rtl.Rate
			cfg, _, _ := system(Share, 6, 450, &applied)
			var set func(rtl.Cycle, int) error
			cfg.Comm.Follow = func(f func(rtl.Cycle, int) error) { set = f }
			cfg.Comm.Limits = func(sms int) (*big.Rat, *big.Rat) { return q(int64(sms)*64, 1), nil }
			k := rtl.NewKernel()
			n, err := New(k, cfg)
			require.NoError(t, err)
			require.NotNil(t, set, "New hands the endpoint its setter")
			var end rtl.Cycle
			n.SetCommBusy(0, true)
			require.NoError(t, n.Run(0, Kernel{{SM: q(800, 1), Mem: new(big.Rat)}}, func(now rtl.Cycle) { end = now }))
			at(k, 100, func(now rtl.Cycle) { require.NoError(t, set(now, tc.to)) })
			k.Run()
			require.Equal(t, tc.want, end)
			require.Equal(t, 80-tc.to, n.ComputeSMs())
			if tc.to != 6 {
				require.Equal(t, q(int64(tc.to)*64, 1), n.cfg.Comm.ReadLimit, "the limits follow the SMs")
			}
		})
	}
}

func TestCommunicationSMsRefused(t *testing.T) {
	var applied [][2]rtl.Rate
	cfg, _, _ := system(Partition, 6, 450, &applied)
	n, err := New(rtl.NewKernel(), cfg)
	require.NoError(t, err)
	require.NoError(t, n.SetCommSMs(0, 6), "the partition's own SMs")
	require.ErrorContains(t, n.SetCommSMs(0, 8), "need --memory-policy share")
	cfg, _, _ = system(Share, 6, 450, &applied)
	n, err = New(rtl.NewKernel(), cfg)
	require.NoError(t, err)
	require.ErrorContains(t, n.SetCommSMs(0, 81), "the NPU has 80")
}
