package npu

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Reusing messages (pool) changes nothing: the random configurations of
// TestSparedArrivalsChangeNothing (full and folded networks, several
// collectives in flight), with trains and spared arrivals or with an
// event per packet, run with every message new and with messages reused,
// and must give the same packets on every link, op events on every NPU
// and collective ends. A message used after it was given back would read
// another message's tags or the poison (no destination, no packets) and
// change a trace or fail. Messages are reused.
func TestReusedMessagesChangeNothing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		perPacket bool
		seed      uint64
	}{
		{"trains and spared arrivals", false, 27},
		{"an event per packet", true, 28},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(tc.seed, 11))
			ran := 0
			var reused int64
			for i := 0; i < 200 && ran < 25; i++ {
				c := randomAbsorbRun(r)
				ref, ok := absorbTrace(t, c, tc.perPacket, func(e *Engine) { e.r.pool.fresh = true })
				if !ok {
					continue
				}
				var e *Engine
				got, _ := absorbTrace(t, c, tc.perPacket, func(x *Engine) { e = x })
				require.Equal(t, ref.ends, got.ends, "%+v", c)
				require.Equal(t, ref.ops, got.ops, "%+v", c)
				require.Equal(t, ref.packets, got.packets, "%+v", c)
				reused += e.r.pool.reused
				ran++
			}
			t.Logf("%d configurations, %d messages reused", ran, reused)
			require.GreaterOrEqual(t, ran, 20)
			require.Greater(t, reused, int64(1000))
		})
	}
}

// A message given back is poisoned until it is reused, and taken back
// last in, first out.
func TestPoolGivesBackLastFirst(t *testing.T) {
	var p pool
	a, b := p.message(1, 2, 1000), p.message(3, 4, 256)
	require.Equal(t, int32(4), a.Packets) // ⌈1000 / 256⌉
	p.putMessage(a)
	p.putMessage(b)
	require.Equal(t, int32(-1), a.Dst)
	require.Equal(t, int32(0), a.Packets)
	c := p.message(5, 6, 512)
	require.Same(t, b, c)
	require.Equal(t, int32(6), c.Dst)
	require.Equal(t, int32(2), c.Packets) // 512 / 256
	require.Equal(t, int64(1), p.reused)

	fresh := pool{fresh: true}
	m := fresh.message(0, 1, 256)
	fresh.putMessage(m)
	require.NotSame(t, m, fresh.message(0, 1, 256))
}
