package observe

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A hash sees what it is told to see, in order: the same events give the
// same sum, another order or another field another sum, and kinds it is
// not given leave it alone.
func TestHashFoldsTheEventsItIsGiven(t *testing.T) {
	a, b := Event{Kind: PacketSent, Cycle: 3, Link: 1, Bytes: 256}, Event{Kind: PacketReceived, Cycle: 9, Link: 1, Bytes: 256}
	sum := func(kinds []Kind, es ...Event) (uint64, int64) {
		h := NewHash(kinds...)
		for _, e := range es {
			h.Observe(e)
		}
		return h.Sum(), h.Events
	}
	s1, n1 := sum(nil, a, b)
	s2, _ := sum(nil, a, b)
	s3, _ := sum(nil, b, a)
	c := b
	c.Cycle = 10
	s4, _ := sum(nil, a, c)
	require.Equal(t, s1, s2)
	require.NotEqual(t, s1, s3)
	require.NotEqual(t, s1, s4)
	// Every field counts: one changed at a time changes the sum.
	for _, change := range []func(*Event){
		func(e *Event) { e.End = 1 }, func(e *Event) { e.NPU = 1 }, func(e *Event) { e.Src = 1 }, func(e *Event) { e.Dst = 1 },
		func(e *Event) { e.Coll = 1 }, func(e *Event) { e.Chunk = 1 }, func(e *Event) { e.Phase = 1 }, func(e *Event) { e.Op = 1 },
		func(e *Event) { e.Index = 1 }, func(e *Event) { e.Sub = 1 }, func(e *Event) { e.FSM = 1 }, func(e *Event) { e.Step = 1 },
		func(e *Event) { e.OpKind = 1 }, func(e *Event) { e.Bytes = 1 }, func(e *Event) { e.What = "x" }, func(e *Event) { e.Link = 2 },
	} {
		d := b
		change(&d)
		s, _ := sum(nil, a, d)
		require.NotEqual(t, s1, s, "%+v", d)
	}
	require.Equal(t, int64(2), n1)
	s5, n5 := sum([]Kind{PacketSent}, a, b, Event{Kind: SubStep, What: "send"})
	s6, _ := sum([]Kind{PacketSent}, a)
	require.Equal(t, s6, s5)
	require.Equal(t, int64(1), n5)
}

func TestTeePassesEveryEventOnInOrder(t *testing.T) {
	var got []string
	tee := Tee{Func(func(e Event) { got = append(got, "a:"+e.What) }), Func(func(e Event) { got = append(got, "b:"+e.What) })}
	tee.Observe(Event{What: "x"})
	tee.Observe(Event{What: "y"})
	require.Equal(t, []string{"a:x", "b:x", "a:y", "b:y"}, got)
}
