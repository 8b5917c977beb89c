package npu

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func ratGBps(n int64) *big.Rat { return big.NewRat(n, 1) }

// The platform constants are Table V's, and the per-SM FLOP rate is exact:
// 120e12 / (80 × 1.245e9) = 120000/99.6 = 1_200_000/996 = 100000/83.
func TestPlatformConstants(t *testing.T) {
	require.Equal(t, 80, SMs)
	require.Equal(t, int64(1_245_000_000), int64(ClockHz))
	require.Equal(t, 64, SMLoadStoreBytes)
	require.Equal(t, 900, MemoryGBps)
	require.Equal(t, 120e12, float64(PeakFLOPS))

	f := FLOPsPerSMCycle()
	require.Equal(t, 0, f.Cmp(big.NewRat(1_200_000, 996)), "got %s", f.RatString())
	require.Equal(t, "100000/83", f.RatString())
	// A fresh value each call: modifying one does not change the model.
	f.SetInt64(1)
	require.Equal(t, "100000/83", FLOPsPerSMCycle().RatString())

	// 900 GB/s = 900e9 / 1.245e9 = 900000/1245 = 60000/83 ≈ 722.9 B/cycle.
	require.Equal(t, "60000/83", MemBytesPerCycle(ratGBps(900)).RatString())
	require.NoError(t, FullNPU().Validate())
}

func TestKernelCycles(t *testing.T) {
	tests := []struct {
		name         string
		sms          int
		mem          *big.Rat
		flops, bytes int64
		want         int64
	}{
		{"no work", 80, ratGBps(900), 0, 0, 0},
		{"no work on one SM", 1, ratGBps(1), 0, 0, 0},
		// 1 SM: 1204819 / (100000/83) = 1204819·83/100000 = 99_999_977/100000
		// = 999.99977 → 1000. (A rounded rate of 1204.8 FLOP/cycle would give
		// 1000.016 → 1001: the model must be exact.)
		{"one SM just under 1000 cycles", 1, ratGBps(900), 1_204_819, 0, 1000},
		// 1204820·83 = 100_000_060 → 1000.0006 → 1001.
		{"one SM just over 1000 cycles", 1, ratGBps(900), 1_204_820, 0, 1001},
		// 80 SMs: 80·100000/83 = 8e6/83 FLOP/cycle; 8e6 FLOPs → 83 cycles exactly.
		{"80 SMs exact", 80, ratGBps(900), 8_000_000, 0, 83},
		// 8_000_001·83/8e6 = 83.00001 → 84.
		{"80 SMs one FLOP more", 80, ratGBps(900), 8_000_001, 0, 84},
		// 74 SMs: 7.4e6·83/(74·100000) = 83.
		{"74 SMs exact", 74, ratGBps(450), 7_400_000, 0, 83},
		// 78 SMs: 8e6·83/(78·100000) = 664e6/7.8e6 = 85.128 → 86.
		{"78 SMs", 78, ratGBps(772), 8_000_000, 0, 86},
		// 900 GB/s = 60000/83 B/cycle: 900_000 B → 900000·83/60000 = 1245
		// cycles (1 µs at 1245 MHz).
		{"900 GB/s one microsecond", 80, ratGBps(900), 0, 900_000, 1245},
		// 60000 B → 83 cycles exactly; one byte more → 83.0014 → 84.
		{"900 GB/s exact", 80, ratGBps(900), 0, 60_000, 83},
		{"900 GB/s one byte more", 80, ratGBps(900), 0, 60_001, 84},
		// 772 GB/s = 772000/1245 = 154400/249 B/cycle:
		// 11_580_000·249/154400 = 75·249 = 18675.
		{"772 GB/s", 80, ratGBps(772), 0, 11_580_000, 18675},
		// 450 GB/s = 450000/1245 = 30000/83 B/cycle:
		// 11_580_000·83/30000 = 386·83 = 32038.
		{"450 GB/s", 74, ratGBps(450), 0, 11_580_000, 32038},
		// 128 GB/s = 128000/1245 B/cycle: 1000·1245/128000 = 9.727 → 10.
		{"128 GB/s rounds up", 80, ratGBps(128), 0, 1000, 10},
		// 80.5 GB/s = 161/2: 161000 B → 161000·1245/80500 = 2·1245 = 2490.
		{"fractional bandwidth", 80, big.NewRat(161, 2), 0, 161_000, 2490},
		// Both bounds: compute 83 cycles, memory 1245 cycles → memory wins.
		{"memory bound", 80, ratGBps(900), 8_000_000, 900_000, 1245},
		// Compute 8e6·83/1e5 = 6640 cycles on 1 SM, memory 1245 → compute wins.
		{"compute bound", 1, ratGBps(900), 8_000_000, 900_000, 6640},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Compute{SMs: tc.sms, MemGBps: tc.mem}
			require.Equal(t, tc.want, c.KernelCycles(tc.flops, tc.bytes))
		})
	}
}

// A memory-bound kernel takes 772/450 times longer at 450 GB/s than at
// 772 GB/s (BaselineCommOpt vs BaselineCompOpt, Table VI), exactly when both
// divisions are exact: bytes = 11_580_000·k gives 18675·k and 32038·k
// cycles, and 18675·772 = 32038·450 = 14_417_100.
func TestMemoryBoundRatio772Vs450(t *testing.T) {
	for _, k := range []int64{1, 2, 7, 1000} {
		bytes := 11_580_000 * k
		fast := Compute{SMs: 78, MemGBps: ratGBps(772)}.KernelCycles(1000, bytes)
		slow := Compute{SMs: 74, MemGBps: ratGBps(450)}.KernelCycles(1000, bytes)
		require.Equal(t, 18675*k, fast)
		require.Equal(t, 32038*k, slow)
		require.Equal(t, 0, big.NewRat(slow, fast).Cmp(big.NewRat(772, 450)), "k=%d: %d/%d", k, slow, fast)
	}
}

// A compute-bound kernel's time does not depend on memory bandwidth:
// 8e6 FLOPs on 80 SMs take 83 cycles; 1000 B take at most
// 1000·1245/128000 = 9.7 → 10 cycles at any of Table VI's bandwidths.
func TestComputeBoundIndependentOfMemory(t *testing.T) {
	for _, m := range []int64{900, 772, 450, 128} {
		c := Compute{SMs: 80, MemGBps: ratGBps(m)}
		require.Equal(t, int64(83), c.KernelCycles(8_000_000, 1000), "%d GB/s", m)
	}
}

func TestComputeValidate(t *testing.T) {
	tests := []struct {
		name string
		c    Compute
		want []string // substrings of the error; nil = valid
	}{
		{"full NPU", Compute{SMs: 80, MemGBps: ratGBps(900)}, nil},
		{"one SM, fractional bandwidth", Compute{SMs: 1, MemGBps: big.NewRat(1, 2)}, nil},
		{"zero SMs", Compute{SMs: 0, MemGBps: ratGBps(900)}, []string{"SMs 0", "1..80"}},
		{"81 SMs", Compute{SMs: 81, MemGBps: ratGBps(900)}, []string{"SMs 81", "1..80"}},
		{"negative SMs", Compute{SMs: -3, MemGBps: ratGBps(900)}, []string{"SMs -3", "1..80"}},
		{"zero bandwidth", Compute{SMs: 80, MemGBps: ratGBps(0)}, []string{"0 GB/s", "positive", "(0, 900]"}},
		{"negative bandwidth", Compute{SMs: 80, MemGBps: ratGBps(-5)}, []string{"-5 GB/s", "(0, 900]"}},
		{"too much bandwidth", Compute{SMs: 80, MemGBps: ratGBps(901)}, []string{"901 GB/s", "at most 900"}},
		{"no bandwidth", Compute{SMs: 80}, []string{"not set", "(0, 900]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate()
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, s := range tc.want {
				require.Contains(t, err.Error(), s)
			}
		})
	}
}

func TestKernelCyclesPanics(t *testing.T) {
	c := FullNPU()
	require.PanicsWithValue(t, "npu: kernel with -1 FLOPs and 0 bytes: work must not be negative", func() { c.KernelCycles(-1, 0) })
	require.Panics(t, func() { c.KernelCycles(0, -1) })
	require.Panics(t, func() { Compute{SMs: 0, MemGBps: ratGBps(900)}.KernelCycles(1, 0) })
	// No work needs no resources.
	require.Equal(t, int64(0), Compute{}.KernelCycles(0, 0))
	// A result past int64 panics rather than wrapping: 9e18 B at 1e-9 GB/s.
	require.Panics(t, func() {
		Compute{SMs: 1, MemGBps: big.NewRat(1, 1_000_000_000)}.KernelCycles(0, 9_000_000_000_000_000_000)
	})
}
