package xcore

import (
	"fmt"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

func ringPlan(t *testing.T) *collectives.Plan {
	p, err := collectives.NewPlan(collectives.Config{Machine: torus.Shape{L: 4, V: 1, H: 1}.Machine(), Op: collectives.OpAllReduce, MessageBytes: 8192}, "ring", 4*8192, 2*8192)
	require.NoError(t, err)
	return p
}

// A collective of 2 chunks on 3 NPUs is done after its 6th chunk finishes,
// once, after the cycle's other events; another stays unfinished.
func TestACollectiveIsDoneWhenItsLastChunkFinishes(t *testing.T) {
	k := rtl.NewKernel()
	cs := NewCollectives(k)
	p := ringPlan(t)
	require.Equal(t, 2, p.NumChunks())
	var doneAt []rtl.Cycle
	a := cs.Add(p, 3, 0, func(now rtl.Cycle) { doneAt = append(doneAt, now) })
	cs.Add(p, 3, 2, nil)
	require.Equal(t, 12, cs.PendingChunks())
	for i := 0; i < 6; i++ {
		k.Schedule(rtl.Cycle(10+i), rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) { cs.Finish(now, a, int32(i%2)) }), 0, 0)
	}
	k.Run()
	require.Equal(t, []rtl.Cycle{15}, doneAt)
	require.Equal(t, 1, cs.Unfinished())
	require.Equal(t, 6, cs.PendingChunks())
	require.Equal(t, int32(2), cs.All()[1].First)
}

// Progress goes chunk by chunk in order, each once it has finished on
// every NPU: 3 chunks of 1024, 1024 and 952 B on 2 NPUs finishing (chunk,
// NPU) (0,a) at 10, (0,b) at 11, (2,a) at 12, (2,b) at 13, (1,a) at 14,
// (1,b) at 15: 1024 B are final at 11; chunk 2 is finished everywhere at
// 13 but waits for chunk 1, so all 3000 B are reported at 15, once, then
// done (a hierarchical plan declares no pieces).
func TestProgressGoesChunkByChunkInOrder(t *testing.T) {
	k := rtl.NewKernel()
	cs := NewCollectives(k)
	s, err := torus.Parse("4x1x1")
	require.NoError(t, err)
	p, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: 256}, "hierarchical", 3000, 1024)
	require.NoError(t, err)
	require.Equal(t, 3, p.NumChunks())
	var got []string
	a := cs.Add(p, 2, 0, func(now rtl.Cycle) { got = append(got, fmt.Sprintf("done@%d", now)) })
	a.Track(func(now rtl.Cycle, b int64) { got = append(got, fmt.Sprintf("%d B@%d", b, now)) })
	for i, c := range []int32{0, 0, 2, 2, 1, 1} {
		k.Schedule(rtl.Cycle(10+i), rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) { cs.Finish(now, a, c) }), 0, 0)
	}
	k.Run()
	require.Equal(t, []string{"1024 B@11", "3000 B@15", "done@15"}, got)
}

// Ops: completing an op releases each op whose last dependence it was, in
// the program's order, and the phase's count reaches zero with the last.
func TestOpsReleaseWhatWaited(t *testing.T) {
	p := ringPlan(t)
	prog := p.Program(0, 0, p.ChunkLen(0))
	infos := Infos{}
	in := infos.Of(prog)
	require.Same(t, in, infos.Of(prog), "derived once")
	var o Ops
	o.Begin(in)
	require.Equal(t, len(prog.Ops), o.Remaining)
	var order []int32
	var ready []int32
	for i := range prog.Ops {
		if o.Ready(int32(i)) {
			ready = append(ready, int32(i))
		}
	}
	require.NotEmpty(t, ready)
	for len(ready) > 0 {
		i := ready[0]
		ready = ready[1:]
		order = append(order, i)
		o.Complete(i, func(d int32) { ready = append(ready, d) })
	}
	require.Len(t, order, len(prog.Ops), "every op runs once, each after its dependences")
	require.Zero(t, o.Remaining)
	for i := range prog.Ops {
		require.Zero(t, o.st[i].deps)
	}
}

// A chunk of a ring all-reduce on 4 NPUs (2 chunks of 16 KiB: 32 KiB
// payload, 16 KiB chunks) walks its phases: it loads its program and ops
// phase by phase, is finished past its last phase, and its end goes to the
// observer with its values and counts once towards its collective.
func TestAChunkWalksItsPhasesAndEndsOnce(t *testing.T) {
	k := rtl.NewKernel()
	cs := NewCollectives(k)
	p := ringPlan(t)
	co := cs.Add(p, 1, 0, nil)
	c := NewChunk(co, 1)
	require.Equal(t, p.ChunkLen(1), c.Len)
	infos := Infos{}
	for ph := 0; ph < p.NumPhases(); ph++ {
		c.Phase = int32(ph)
		require.False(t, c.Finished())
		c.Load(2, infos)
		require.Same(t, p.Program(2, ph, c.Len), c.Prog)
		require.Same(t, infos.Of(c.Prog), c.Info)
		require.Equal(t, len(c.Prog.Ops), c.Ops.Remaining)
	}
	c.Phase = int32(p.NumPhases())
	require.True(t, c.Finished())
	c.Vals = []int64{7, 8}
	var seen []observe.Event
	c.Done(42, 2, observe.Func(func(e observe.Event) { seen = append(seen, e) }), cs)
	require.Len(t, seen, 1)
	require.Equal(t, observe.Event{Kind: observe.ChunkDone, Cycle: 42, NPU: 2, Chunk: 1, Values: []int64{7, 8}}, seen[0])
	require.Nil(t, c.Prog)
	require.Nil(t, c.Info)
	require.Nil(t, c.Vals)
	require.Equal(t, 1, cs.PendingChunks(), "one of the collective's two chunks finished")
}
