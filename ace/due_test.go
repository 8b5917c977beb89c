package ace

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/rtl"
)

// The ends of sub-steps are applied at the cycle they are due, in the
// order they were started, whether they wait in the calendar (due less
// than dueRing cycles after their start) or in the heap: ends due 0, 1,
// 63, 64, 65 and up to 300 cycles after their start, started over 400
// cycles, against a sort by (cycle due, start order); and only the far
// ends (dueRing cycles or more) wait in the heap.
func TestDueEndsRunAtTheirCycleInOrder(t *testing.T) {
	type end struct {
		at  rtl.Cycle
		seq uint64
		i   int32
	}
	r := rand.New(rand.NewPCG(7, 11))
	nd := &node{}
	var ends []end
	seq, far := uint64(0), 0
	delays := map[int32]rtl.Cycle{}
	var applied []int32
	drain := func(now rtl.Cycle) {
		before := len(nd.freeFx)
		nd.applyDue(now, math.MaxUint64)
		applied = append(applied, nd.freeFx[before:]...)
	}
	for now := rtl.Cycle(0); now < 700; now++ {
		drain(now) // the ends due now, started before this cycle
		if now < 400 {
			for range r.IntN(4) {
				delay := []rtl.Cycle{0, 1, 63, 64, 65, rtl.Cycle(r.IntN(300))}[r.IntN(6)]
				i := int32(len(nd.fx))
				seq++
				nd.fx = append(nd.fx, effect{kind: -1, seq: seq}) // no effect
				nd.pushDue(now, now+delay, seq, i)
				ends = append(ends, end{now + delay, seq, i})
				delays[i] = delay
				if delay >= dueRing {
					far++
				}
			}
		}
		drain(now) // the ends started now and due now
		for _, d := range nd.due {
			require.GreaterOrEqual(t, d.at, now, "an end past due in the heap")
			require.GreaterOrEqual(t, delays[d.i], rtl.Cycle(dueRing), "an end due %d cycles after its start waits in the heap, not the calendar", delays[d.i])
		}
	}
	require.Positive(t, far)
	sort.Slice(ends, func(a, b int) bool {
		return ends[a].at < ends[b].at || ends[a].at == ends[b].at && ends[a].seq < ends[b].seq
	})
	want := make([]int32, len(ends))
	for k, e := range ends {
		want[k] = e.i
	}
	require.Equal(t, want, applied)
}
