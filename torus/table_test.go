package torus

import (
	"math/rand/v2"
	"testing"

	"github.com/acemu/acemu/fabric"
	"github.com/stretchr/testify/require"
)

// The table answers every question as the shape does, on shapes with
// rings of every size from 1 to 8 and on every pair of NPUs of the small
// ones (a sample of the large).
func TestTableAnswersAsTheShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []Shape{{1, 1, 1}, {2, 1, 1}, {4, 2, 2}, {3, 5, 2}, {4, 8, 4}, {1, 7, 6}, {8, 1, 3}, {2, 2, 2}} {
		tb := s.Table()
		n := s.N()
		pairs := n * n
		for k := 0; k < min(pairs, 20000); k++ {
			a, b := k/n, k%n
			if pairs > 20000 {
				a, b = rng.IntN(n), rng.IntN(n)
			}
			require.Equal(t, s.Displace(a, b), tb.Displace(a, b), "%s displace %d %d", s, a, b)
			require.Equal(t, s.Displacement(a, b), tb.Displacement(a, b), "%s displacement %d %d", s, a, b)
			hop, ok := s.NextHop(a, b)
			p, ok2 := tb.NextPort(a, b)
			require.Equal(t, ok, ok2)
			if ok {
				require.Equal(t, hop.Index(), p, "%s next %d %d", s, a, b)
			}
			m := &fabric.Message{Dst: int32(b)}
			pkt := fabric.Packet{Msg: m, Shift: int32(a)}
			require.Equal(t, s.PacketDst(pkt), tb.PacketDst(pkt))
		}
	}
}
