package memsys

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func r(a, b int64) *big.Rat { return big.NewRat(a, b) }

// Each case's expected rates are worked in its comment.
func TestShareIsWeightedMaxMin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rate   *big.Rat
		claims []Claim
		want   []*big.Rat
	}{
		// ACE under full contention on 900 GB/s: weights 772:128:128 of
		// 1028; compute 900·772/1028 = 173700/257, each DMA 900·128/1028 =
		// 28800/257 (≈ 675.9 and 112.1).
		{"ace", r(900, 1), []Claim{{r(772, 1), nil}, {r(128, 1), nil}, {r(128, 1), nil}},
			[]*big.Rat{r(173700, 257), r(28800, 257), r(28800, 257)}},
		// The same with the DMA engines limited to 100: both capped at 100,
		// compute gets the other 700.
		{"ace limited", r(900, 1), []Claim{{r(772, 1), nil}, {r(128, 1), r(100, 1)}, {r(128, 1), r(100, 1)}},
			[]*big.Rat{r(700, 1), r(100, 1), r(100, 1)}},
		// CommOpt: three equal weights of 450: 300 each.
		{"commopt", r(900, 1), []Claim{{r(450, 1), nil}, {r(450, 1), nil}, {r(450, 1), nil}},
			[]*big.Rat{r(300, 1), r(300, 1), r(300, 1)}},
		// A compute-bound kernel wanting 200: the others share 700 by
		// weight 1:1 → 350 each, under their limits of 500.
		{"kernel below share", r(900, 1), []Claim{{r(450, 1), r(200, 1)}, {r(450, 1), r(500, 1)}, {r(450, 1), r(500, 1)}},
			[]*big.Rat{r(200, 1), r(350, 1), r(350, 1)}},
		// Capping cascades: 100 split 1:1:2 gives 25, 25, 50; A's limit 10
		// binds, 90 left split 1:2 → 30, 60; B's limit 20 binds, C gets 70.
		{"cascade", r(100, 1), []Claim{{r(1, 1), r(10, 1)}, {r(1, 1), r(20, 1)}, {r(2, 1), nil}},
			[]*big.Rat{r(10, 1), r(20, 1), r(70, 1)}},
		// Zero weight: only what the weighted claims leave (100 − 30 − 40
		// = 30), shared equally by the two of them.
		{"zero weight", r(100, 1), []Claim{{r(1, 1), r(30, 1)}, {r(1, 1), r(40, 1)}, {new(big.Rat), nil}, {new(big.Rat), nil}},
			[]*big.Rat{r(30, 1), r(40, 1), r(15, 1), r(15, 1)}},
		// Zero weight beside an unlimited weighted claim: nothing.
		{"zero weight starved", r(100, 1), []Claim{{r(1, 1), nil}, {new(big.Rat), nil}},
			[]*big.Rat{r(100, 1), r(0, 1)}},
		// Everyone limited below the rate: each its limit, memory idle.
		{"all limited", r(100, 1), []Claim{{r(1, 1), r(10, 1)}, {r(5, 1), r(20, 1)}},
			[]*big.Rat{r(10, 1), r(20, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Share(tc.rate, tc.claims)
			require.Len(t, got, len(tc.want))
			for i := range got {
				require.Zero(t, got[i].Cmp(tc.want[i]), "claim %d: got %s, want %s", i, got[i].RatString(), tc.want[i].RatString())
			}
		})
	}
}
