package ace

import (
	"math/rand/v2"
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// A kickSet answers as a plain set of pending cycles does, over random
// requests near (same cycle, next, within the ring) and far (beyond it,
// and exactly a ring ahead, which shares a near cycle's bit) while time
// moves on and the due kicks run.
func TestKickSetIsASetOfPendingCycles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var s kickSet
	want := map[rtl.Cycle]bool{}
	now := rtl.Cycle(0)
	for step := 0; step < 50_000; step++ {
		if r.IntN(4) == 0 { // time moves on to the next pending kick, which runs
			next := rtl.Cycle(-1)
			for c := range want {
				if next < 0 || c < next {
					next = c
				}
			}
			if next >= 0 {
				now = next
				delete(want, now)
				s.remove(now)
			}
			continue
		}
		var ahead rtl.Cycle
		switch r.IntN(5) {
		case 0:
			ahead = 0
		case 1:
			ahead = 1
		case 2:
			ahead = rtl.Cycle(r.IntN(kickRing))
		case 3:
			ahead = kickRing + rtl.Cycle(r.IntN(3)) - 1
		default:
			ahead = rtl.Cycle(r.IntN(5 * kickRing))
		}
		at := now + ahead
		require.Equal(t, !want[at], s.add(now, at), "step %d: a kick at %d asked at %d", step, at, now)
		want[at] = true
	}
}
