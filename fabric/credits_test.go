package fabric

import (
	"math/rand/v2"
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// A credit queue gives the cycles a FIFO of cycles gives: on random
// rates and random pushes (single credits and runs), pops, drops and
// reads through a cursor, against a plain list where a run's credit i is
// ⌈(at×Num − slack + i×d) / Num⌉, worked out by division.
func TestCreditQueueIsAFIFOOfCycles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	for run := 0; run < 200; run++ {
		rate := rtl.Rate{Num: 1 + r.Int64N(60_000), Den: 1 + r.Int64N(300)}
		d := PacketBytes * rate.Den
		q := newCreditQueue(rate)
		var ref []rtl.Cycle
		at := rtl.Cycle(r.IntN(100))
		for step := 0; step < 300; step++ {
			switch op := r.IntN(6); {
			case op == 0:
				at += rtl.Cycle(r.IntN(20))
				q.Push(at)
				ref = append(ref, at)
			case op == 1:
				at += rtl.Cycle(r.IntN(20))
				slack, n := r.Int64N(rate.Num), r.IntN(300)
				q.PushRun(at, slack, n)
				for i := range int64(n) {
					v := int64(at)*rate.Num - slack + i*d
					ref = append(ref, rtl.Cycle((v+rate.Num-1)/rate.Num))
				}
				if n > 0 {
					at = ref[len(ref)-1]
				}
			case op == 2 && len(ref) > 0:
				require.Equal(t, ref[0], q.Pop(), "run %d step %d", run, step)
				ref = ref[1:]
			case op == 3:
				k := r.IntN(len(ref) + 1)
				q.Drop(k)
				ref = ref[k:]
			case op == 4:
				c := q.Cursor()
				for i := range ref {
					require.Equal(t, ref[i], c.At(), "run %d step %d credit %d", run, step, i)
					c.Next()
				}
			}
			require.Equal(t, len(ref), q.Len())
			got, ok := q.Peek()
			require.Equal(t, len(ref) > 0, ok)
			if ok {
				require.Equal(t, ref[0], got)
			}
		}
	}
}
