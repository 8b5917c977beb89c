package fabric

import (
	"math/rand/v2"
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// A credit queue gives the cycles a FIFO of cycles gives: on random
// rates, latencies and random pushes (single credits and runs), pops,
// drops and reads through a cursor, against a plain list where the
// credit of a run's packet i, ending at the exact instant e + i×d, is
// ⌈(e + i×d) / Num⌉ + Latency + CreditLatency, worked out by division.
func TestCreditQueueIsAFIFOOfCycles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	for run := 0; run < 200; run++ {
		rate := rtl.Rate{Num: 1 + r.Int64N(60_000), Den: 1 + r.Int64N(300)}
		d := PacketBytes * rate.Den
		p := LinkParams{Rate: rate, Latency: rtl.Cycle(r.IntN(600)), CreditLatency: rtl.Cycle(r.IntN(600))}
		lag := p.Latency + p.CreditLatency
		q := newCreditQueue(p)
		var ref []rtl.Cycle
		at := lag + rtl.Cycle(r.IntN(100)) // a credit comes back lag after its packet ends, at 0 or later
		for step := 0; step < 300; step++ {
			switch op := r.IntN(6); {
			case op == 0:
				at += rtl.Cycle(r.IntN(20))
				q.Push(at)
				ref = append(ref, at)
			case op == 1:
				// A run ending no earlier than the credits before it.
				e, n := int64(at-lag)*rate.Num+r.Int64N(20*rate.Num), r.IntN(300)
				q.PushRun(e, n)
				for i := range int64(n) {
					v := e + i*d
					ref = append(ref, rtl.Cycle((v+rate.Num-1)/rate.Num)+lag)
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
