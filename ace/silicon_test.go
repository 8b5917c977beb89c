package ace

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// At the paper's design point the parts are Table IV's and add up to its
// total: 4 × 16112 + 159803 + 5113696 + 1084 = 5339031 µm², and
// 4 × 7.552 + 128 + 4096 + 0.329 = 4254.537 mW (Table IV prints 4255).
// Scaled: 8 MiB and 20 FSMs double the SRAM (10227392 µm², 8192 mW) and
// take 20/16 of the control unit (199753.75 µm², 160 mW): 10227392 +
// 199753.75 + 64448 + 1084 = 10492677.75 µm² and 8382.537 mW with the same
// ALUs and switch. 1 MiB and 4 FSMs: 1278424 + 39950.75 + 64448 + 1084 =
// 1383906.75 µm²; 1024 + 32 + 30.208 + 0.329 = 1086.537 mW. ALUs scale
// with count × width: 8 of 32 B are Table IV's 4 × 64 B; 8 of 64 B are
// twice that, 5339031 + 64448 = 5403479 µm² and 4254.537 + 30.208 =
// 4284.745 mW.
func TestSiliconScalesTableIV(t *testing.T) {
	for _, tc := range []struct {
		name          string
		sram          int64
		fsms, alus    int
		aluBytes      int64
		area, powerMW string
	}{
		{"Table IV", 4 << 20, 16, 4, 64, "5339031", "4254.537"},
		{"8 MiB, 20 FSMs", 8 << 20, 20, 4, 64, "10492677.75", "8382.537"},
		{"1 MiB, 4 FSMs", 1 << 20, 4, 4, 64, "1383906.75", "1086.537"},
		{"8 ALUs of 32 B", 4 << 20, 16, 8, 32, "5339031", "4254.537"},
		{"8 ALUs of 64 B", 4 << 20, 16, 8, 64, "5403479", "4284.745"},
	} {
		c := Default()
		c.SRAMBytes, c.FSMs, c.ALUs, c.ALUBytes = tc.sram, tc.fsms, tc.alus, tc.aluBytes
		s := SiliconOf(c)
		want, _ := new(big.Rat).SetString(tc.area)
		require.Equal(t, want.String(), s.AreaUm2.String(), tc.name)
		want, _ = new(big.Rat).SetString(tc.powerMW)
		require.Equal(t, want.String(), s.PowerMW.String(), tc.name)
		require.Len(t, s.Parts, 4)
	}
}
