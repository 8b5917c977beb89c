package measure

import (
	"fmt"
	"math/big"
	"os"
	"testing"

	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/sim"
	"github.com/acemu/acemu/topology"
	"github.com/stretchr/testify/require"
)

// TestE1ContentionSweep is E1 of docs/validation.md ("LIBRA's baseline"):
// a 112.7 MB all-reduce on 8 NPUs against 25.7 ms of compute, the
// communication SMs swept. It takes about a minute, so it runs only with
// ACEMU_LIBRA_E1=1:
//
//	ACEMU_LIBRA_E1=1 go test ./libra/measure -run TestE1ContentionSweep -v
func TestE1ContentionSweep(t *testing.T) {
	if os.Getenv("ACEMU_LIBRA_E1") == "" {
		t.Skip("E1 takes about a minute: set ACEMU_LIBRA_E1=1")
	}
	spec, err := topology.Parse("2x2x2")
	require.NoError(t, err)
	// 25.7 ms at 1245 MHz: 25.7e-3 × 1.245e9 = 31,996,500 cycles.
	ms := big.NewRat(31_996_500, 1)
	for _, k := range []struct {
		name string
		k    contend.Kernel
	}{
		{"ridge", contend.Stretched(ms, 0, 0)},
		{"SM-bound", contend.Kernel{{SM: ms, Mem: new(big.Rat)}}},
		{"memory-bound", contend.Kernel{{SM: new(big.Rat), Mem: ms}}},
	} {
		c, err := Measure(Setup{Sim: sim.Setup{Machine: spec, Library: npu.NCCLSimple()}, Compute: []contend.Kernel{k.k},
			Bytes: 112_700_000, StartupBytes: 16, SMs: []int{1, 2, 3, 4, 6, 8}})
		require.NoError(t, err)
		fmt.Printf("E1 %s kernel: alone %d cycles, start-up a %d cycles\n", k.name, c.Alone, c.Startup)
		fmt.Printf("  SMs  compute beside (x alone)  all-reduce beside  all-reduce alone (cycles)\n")
		for _, p := range c.Points {
			fmt.Printf("  %3d  %10d (%.3f)  %10d  %10d\n", p.SMs, p.Overlapped, float64(p.Overlapped)/float64(c.Alone), p.CommOverlapped, p.CommAlone)
		}
		f, err := c.Fit()
		require.NoError(t, err)
		fmt.Printf("  sent %d B per NPU (ĉ/c = %.4f); Eq (5): α1 = %.4f, α2 = %.4f per SM; Eq (6) beside: γ1 = %.2f, γ2 = %.2f, γ3 = %.4g (worst %.1f%%); alone: γ1 = %.2f, γ2 = %.2f, γ3 = %.4g (worst %.1f%%)\n",
			c.Sent, float64(c.Sent)/float64(c.Bytes), f.Alpha1, f.Alpha2, f.P.Gamma1, f.P.Gamma2, f.P.Gamma3, 100*f.P.MaxError, f.Q.Gamma1, f.Q.Gamma2, f.Q.Gamma3, 100*f.Q.MaxError)
	}
}
