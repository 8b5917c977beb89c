package contend

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// joinRun is a random configuration of the baseline beside compute under
// Share: a torus, the baseline's SMs and memory allotment, collectives
// issued at random cycles and compute kernels run one after another.
type joinRun struct {
	topo    string
	commSMs int
	commGB  int64
	sizes   []int64
	gaps    []rtl.Cycle
	work    [][2]int64 // FLOPs and bytes of each kernel
	// newSMs, if not 0, is the communication SMs set (SetCommSMs) as the
	// last collective is issued, moving communication's limits.
	newSMs int
}

func randomJoinRun(r *rand.Rand) joinRun {
	c := joinRun{topo: []string{"4x1x1", "2x2x1", "4x2x1", "2x2x2", "3x1x1"}[r.IntN(5)],
		commSMs: 1 + r.IntN(12), commGB: int64(20 + r.IntN(600))}
	for i := 1 + r.IntN(3); i > 0; i-- {
		c.sizes = append(c.sizes, int64(4096+r.IntN(200_000)))
		c.gaps = append(c.gaps, rtl.Cycle(r.IntN(5000)))
	}
	for i := 1 + r.IntN(40); i > 0; i-- {
		c.work = append(c.work, [2]int64{int64(r.IntN(200_000_000)), int64(1 + r.IntN(2_000_000))})
	}
	c.newSMs = r.IntN(13)
	return c
}

// joinTrace runs c with the watchers joining transfers back to back or
// keeping each apart (perTransfer): what every link sent and received,
// every op event, every kernel's start and end and every collective's
// end, in order; and how many transfers were joined.
func joinTrace(t *testing.T, c joinRun, perTransfer bool) ([]string, int64) {
	s, err := torus.Parse(c.topo)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.Build(k, s, torus.DefaultLinks(), false)
	require.NoError(t, err)
	var trace []string
	record := observe.Func(func(e observe.Event) {
		trace = append(trace, fmt.Sprintf("%d %d %d link %d npu %d c%d p%d o%d #%d", e.Kind, e.Cycle, e.End, e.Link, e.NPU, e.Chunk, e.Phase, e.Op, e.Index))
	})
	net.SetObserver(record)
	cfg := npu.DefaultBaseline(c.commSMs, big.NewRat(c.commGB, 1))
	cfg.Observer = record
	e, err := npu.NewBaselineEngine(k, net, s.Machine(), cfg)
	require.NoError(t, err)
	mem, n := e.Memory()
	sms := big.NewRat(int64(c.commSMs)*cfg.SMBytes, 1)
	sh, err := New(k, Config{Policy: Share, Observer: record,
		Compute: npu.Compute{SMs: npu.SMs - c.commSMs, MemGBps: big.NewRat(npu.MemoryGBps-c.commGB, 1)},
		Comm: Comm{SMs: c.commSMs, GBps: big.NewRat(c.commGB, 1), ReadLimit: sms, WriteLimit: sms,
			Apply: e.SetMemoryRates, Memory: mem, NPUs: n,
			Limits: func(sms int) (read, write *big.Rat) {
				l := big.NewRat(int64(sms)*cfg.SMBytes, 1)
				return l, l
			}}})
	require.NoError(t, err)
	sh.perTransfer = perTransfer
	var next func(now rtl.Cycle)
	i := 0
	next = func(now rtl.Cycle) {
		if i == len(c.work) {
			return
		}
		w := c.work[i]
		i++
		require.NoError(t, sh.Run(now, Roofline(w[0], w[1]), next))
	}
	at(k, 0, next)
	issued, ended := rtl.Cycle(0), 0
	for j, size := range c.sizes {
		plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: 8192}, "hierarchical", size, 65536)
		require.NoError(t, err)
		issued += c.gaps[j]
		last := j == len(c.sizes)-1
		at(k, issued, func(now rtl.Cycle) {
			sh.SetCommBusy(now, true)
			if last && c.newSMs != 0 {
				require.NoError(t, sh.SetCommSMs(now, c.newSMs))
			}
			require.NoError(t, e.Issue(now, plan, func(now rtl.Cycle) {
				trace = append(trace, fmt.Sprintf("end %d", now))
				if ended++; ended == len(c.sizes) {
					sh.SetCommBusy(now, false)
				}
			}))
		})
	}
	k.Run()
	require.NoError(t, e.Stuck())
	return trace, sh.joined
}

// Joining a memory serializer's transfers back to back into one
// (watcher.started), and sparing an arbitration whose claims are the
// last one's (NPU.arbitrate), change nothing compute and communication
// see: on random configurations of the baseline beside compute kernels
// under Share, every packet, op event, kernel start and end and
// collective end is the same, in the same order, as with every transfer
// kept apart and every arbitration done.
func TestJoinedTransfersChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 5))
	joined := int64(0)
	for range 40 {
		c := randomJoinRun(r)
		ref, none := joinTrace(t, c, true)
		require.Zero(t, none)
		got, n := joinTrace(t, c, false)
		require.Equal(t, ref, got, "%+v", c)
		joined += n
	}
	t.Logf("%d transfers joined", joined)
	require.Positive(t, joined)
}
