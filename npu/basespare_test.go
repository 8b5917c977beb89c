package npu

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// baseRun is one random configuration of the baseline endpoint: an
// absorbRun's network and collectives, the baseline's SMs, memory, bus and
// library, and the memory rates changing at random cycles as compute's
// claims would change them beside it (contend.NPU gives the baseline its
// rates through Engine.SetMemoryRates, docs/memory-system.md).
type baseRun struct {
	absorbRun
	cfg   BaselineConfig
	rates []rateChange
}

// rateChange gives communication new memory rates gap cycles after the one
// before.
type rateChange struct {
	gap         rtl.Cycle
	read, write rtl.Rate
}

func randomBaseRun(r *rand.Rand) baseRun {
	run := baseRun{absorbRun: randomAbsorbRun(r)}
	run.cfg = DefaultBaseline(1+r.IntN(12), big.NewRat(int64(20+r.IntN(900)), 1))
	run.cfg.BusGBps = big.NewRat(int64(50+r.IntN(600)), 1)
	if r.IntN(2) == 0 {
		run.cfg.Library = Library{LaunchCycles: rtl.Cycle(r.IntN(2000)), StepCycles: rtl.Cycle(r.IntN(300))}
	}
	rate := func() rtl.Rate { return rtl.Rate{Num: int64(1 + r.IntN(800)), Den: int64(1 + r.IntN(7))} }
	for i := r.IntN(40); i > 0; i-- {
		run.rates = append(run.rates, rateChange{gap: rtl.Cycle(r.IntN(4000)), read: rate(), write: rate()})
	}
	return run
}

// baseTrace runs c on the baseline endpoint with an event for every
// packet (perPacket) or without (traceRun), on an engine set up further
// by each of with, and returns the events the kernel ran too.
func baseTrace(t *testing.T, c baseRun, perPacket bool, with ...func(*Engine)) (res absorbResult, events uint64, ok bool) {
	base := func(k *rtl.Kernel, net *fabric.Network, m *machine.Machine, obs observe.Observer) (*Engine, error) {
		cfg := c.cfg
		cfg.Observer = obs
		return NewBaselineEngine(k, net, m, cfg)
	}
	rates := func(k *rtl.Kernel, e *Engine) {
		at := rtl.Cycle(0)
		for _, rc := range c.rates {
			at += rc.gap
			k.Schedule(at, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) { e.SetMemoryRates(rc.read, rc.write) }), 0, 0)
		}
	}
	res, _, k, ok := traceRun(t, c.absorbRun, perPacket, base, rates, with...)
	if !ok {
		return res, 0, false
	}
	return res, k.Events(), true
}

// resumeAlways has every baseline port's riders go on in a resumed event
// after a port that claimed (basePath.resumeAlways).
func resumeAlways(e *Engine) {
	for _, nd := range e.r.nodes {
		nd.dp.(*basePath).resumeAlways = true
	}
}

// The baseline's spared events and work change nothing (the RX DMA's
// writes that end without an event; a port's retry that finds its
// resources taken, scheduled again without the pump; a port's retry
// riding on the one scheduled right before it, basePath.retryAt, and,
// every third configuration, the riders after a
// port's pump going on in a resumed event, as they do after an event
// the pump interposes; the RX DMA finding its next link with a packet
// from counts kept per link, basePath.rxFind, where the reference asks
// every link; messages reused, where the reference's are every one new,
// pool): on random
// configurations (an absorbRun's shapes, algorithms, links and
// collectives in flight, the baseline's SMs, memory, bus and library,
// and its memory rates changing as compute beside it changes them) every
// packet is sent and received at the same cycle on every link, every op
// event comes in the same order at the same cycle on every NPU, and
// every collective ends at the same cycle, with fewer events.
func TestBaselineSparedEventsChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 3))
	ran, refEvents, gotEvents := 0, uint64(0), uint64(0)
	for i := 0; i < 200 && ran < 60; i++ {
		c := randomBaseRun(r)
		ref, refN, ok := baseTrace(t, c, true, func(e *Engine) { e.r.pool.fresh = true })
		if !ok {
			continue
		}
		got, gotN, _ := baseTrace(t, c, false)
		require.Equal(t, ref.ends, got.ends, "%+v", c)
		require.Equal(t, ref.ops, got.ops, "%+v", c)
		require.Equal(t, ref.packets, got.packets, "%+v", c)
		require.LessOrEqual(t, gotN, refN, "%+v", c)
		if ran%3 == 0 {
			resumed, _, _ := baseTrace(t, c, false, resumeAlways)
			require.Equal(t, ref.ends, resumed.ends, "resumed: %+v", c)
			require.Equal(t, ref.ops, resumed.ops, "resumed: %+v", c)
			require.Equal(t, ref.packets, resumed.packets, "resumed: %+v", c)
		}
		ran++
		refEvents += refN
		gotEvents += gotN
	}
	t.Logf("%d configurations, %d events per packet, %d without", ran, refEvents, gotEvents)
	require.GreaterOrEqual(t, ran, 45)
	require.Less(t, gotEvents, refEvents)
}

// The RX DMA's frames (basePath.seen) are what the topology says: on a
// folded and a full 4x4x4 torus, packets of random shifts and
// destinations, taken from random incoming links in runs that repeat a
// link's last shift or destination or change either, are seen with the
// Shift and destination of machine.Topology's Arrived and PacketDst.
func TestBaselineFramesAreTheTopologys(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, folded := range []bool{true, false} {
		s, err := torus.Parse("4x4x4")
		require.NoError(t, err)
		k := rtl.NewKernel()
		net, err := torus.Build(k, s, torus.DefaultLinks(), folded)
		require.NoError(t, err)
		e, err := NewBaselineEngine(k, net, s.Machine(), DefaultBaseline(6, big.NewRat(450, 1)))
		require.NoError(t, err)
		for _, id := range []int{0, s.N() - 1} {
			if folded && id > 0 {
				break // one NPU stands for all
			}
			b := e.r.nodes[id].dp.(*basePath)
			shift, dst := int32(0), int32(0)
			for range 2000 {
				i := r.IntN(len(b.rxLinks))
				if r.IntN(3) == 0 {
					shift = int32(r.IntN(s.N()))
				}
				if r.IntN(3) == 0 {
					dst = int32(r.IntN(s.N()))
				}
				if !folded {
					shift = 0
				}
				pkt := fabric.Packet{Msg: &fabric.Message{Dst: dst}, Shift: shift}
				want := s.Arrived(net, b.rxLinks[i], pkt)
				got, to := b.seen(i, pkt)
				require.Equal(t, want, got, "folded %v, link %d, shift %d, dst %d", folded, i, shift, dst)
				require.Equal(t, s.PacketDst(want), to, "folded %v, link %d, shift %d, dst %d", folded, i, shift, dst)
			}
		}
	}
}
