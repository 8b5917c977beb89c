package torus

import (
	"testing"

	"github.com/acemu/acemu/fabric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDimDirString(t *testing.T) {
	tests := []struct {
		got  string
		want string
	}{
		{Local.String(), "local"},
		{Vertical.String(), "vertical"},
		{Horizontal.String(), "horizontal"},
		{Dim(7).String(), "Dim(7)"},
		{Plus.String(), "+"},
		{Minus.String(), "-"},
		{Dir(5).String(), "Dir(5)"},
		{Intra.String(), "intra"},
		{Inter.String(), "inter"},
		{LinkClass(9).String(), "LinkClass(9)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.got)
	}
	assert.Equal(t, Minus, Plus.Opposite())
	assert.Equal(t, Plus, Minus.Opposite())
}

func TestCoordIDRoundTrip(t *testing.T) {
	for _, s := range []Shape{{2, 3, 4}, {4, 8, 4}} {
		t.Run(s.String(), func(t *testing.T) {
			seen := make(map[Coord]bool, s.N())
			for id := range s.N() {
				c := s.Coord(id)
				for d := range Dim(NumDims) {
					require.GreaterOrEqual(t, c[d], 0)
					require.Less(t, c[d], s.Size(d))
					assert.Equal(t, c[d], s.RingPos(id, d))
				}
				require.False(t, seen[c], "coordinate %v given twice", c)
				seen[c] = true
				require.Equal(t, id, s.ID(c))
			}
			// Every coordinate is reached: N distinct ones in a box of N.
			assert.Len(t, seen, s.N())
		})
	}
}

func TestCoordID(t *testing.T) {
	tests := []struct {
		shape Shape
		id    int
		c     Coord
	}{
		// 2x3x4: id = l + 2*(v + 3*h).
		{Shape{2, 3, 4}, 0, Coord{0, 0, 0}},
		{Shape{2, 3, 4}, 1, Coord{1, 0, 0}},  // 1 + 2*(0+0) = 1
		{Shape{2, 3, 4}, 2, Coord{0, 1, 0}},  // 0 + 2*(1+0) = 2
		{Shape{2, 3, 4}, 6, Coord{0, 0, 1}},  // 0 + 2*(0+3*1) = 6
		{Shape{2, 3, 4}, 23, Coord{1, 2, 3}}, // 1 + 2*(2+3*3) = 1 + 22 = 23, the last
		// 4x8x4: id = l + 4*(v + 8*h).
		{Shape{4, 8, 4}, 93, Coord{1, 7, 2}},  // 1 + 4*(7+16) = 1 + 92 = 93
		{Shape{4, 8, 4}, 59, Coord{3, 6, 1}},  // 3 + 4*(6+8) = 3 + 56 = 59
		{Shape{4, 8, 4}, 127, Coord{3, 7, 3}}, // 3 + 4*(7+24) = 3 + 124 = 127, the last
	}
	for _, tt := range tests {
		assert.Equal(t, tt.c, tt.shape.Coord(tt.id), "Coord(%d) on %s", tt.id, tt.shape)
		assert.Equal(t, tt.id, tt.shape.ID(tt.c), "ID(%v) on %s", tt.c, tt.shape)
	}
}

func TestCoordIDPanics(t *testing.T) {
	s := Shape{2, 3, 4}
	tests := []struct {
		name string
		f    func()
	}{
		{"negative id", func() { s.Coord(-1) }},
		{"id N", func() { s.Coord(24) }}, // N = 2*3*4 = 24
		{"l too big", func() { s.ID(Coord{2, 0, 0}) }},
		{"v negative", func() { s.ID(Coord{0, -1, 0}) }},
		{"h too big", func() { s.ID(Coord{0, 0, 4}) }},
	}
	for _, tt := range tests {
		assert.Panics(t, tt.f, tt.name)
	}
}

func TestRing(t *testing.T) {
	s48 := Shape{4, 8, 4} // id = l + 4*(v + 8*h)
	tests := []struct {
		name  string
		shape Shape
		id    int
		d     Dim
		want  []int
		pos   int
	}{
		// NPU 93 = (1,7,2). Local ring: (l,7,2) = l + 4*(7+16) = l + 92.
		{"4x8x4 local", s48, 93, Local, []int{92, 93, 94, 95}, 1},
		// Vertical ring: (1,v,2) = 1 + 4*(v+16) = 65 + 4v.
		{"4x8x4 vertical", s48, 93, Vertical, []int{65, 69, 73, 77, 81, 85, 89, 93}, 7},
		// Horizontal ring: (1,7,h) = 1 + 4*(7+8h) = 29 + 32h.
		{"4x8x4 horizontal", s48, 93, Horizontal, []int{29, 61, 93, 125}, 2},
		// 4x1x1: a vertical ring of size 1 is the NPU alone.
		{"size 1", Shape{4, 1, 1}, 2, Vertical, []int{2}, 0},
		// 2x3x2, NPU 9 = (1,1,1) (1 + 2*(1+3) = 9). Horizontal ring:
		// (1,1,h) = 1 + 2*(1+3h) = 3 + 6h.
		{"size 2", Shape{2, 3, 2}, 9, Horizontal, []int{3, 9}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.shape.Ring(tt.id, tt.d))
			assert.Equal(t, tt.pos, tt.shape.RingPos(tt.id, tt.d))
			// The NPU sits on its own ring at its position.
			assert.Equal(t, tt.id, tt.want[tt.pos])
		})
	}
}

// Displacements are the torus's translations: adding one and taking it away
// return the start, the zero displacement moves nothing, and on 4x2x3 NPU 5
// = (1,1,0) displaced by 11 = (3,0,1) is (0,1,1) = 0+4·(1+2·1) = 12.
func TestDisplace(t *testing.T) {
	s, err := Parse("4x2x3")
	require.NoError(t, err)
	require.Equal(t, 12, s.Displace(5, 11))
	require.Equal(t, 11, s.Displacement(5, 12))
	for a := 0; a < s.N(); a++ {
		require.Equal(t, a, s.Displace(a, 0))
		for b := 0; b < s.N(); b++ {
			d := s.Displacement(a, b)
			require.Equal(t, b, s.Displace(a, d))
			require.Equal(t, s.Displace(a, b), s.Displace(b, a), "commutative")
			// Translating both ends keeps the route's ports.
			for _, q := range []int{1, 7, 13} {
				require.Equal(t, len(s.Route(a, b)), len(s.Route(s.Displace(a, q), s.Displace(b, q))))
			}
		}
	}
}

// A packet's destination is read relative to how far it has travelled: on
// 4x2x3 a packet from NPU 0 for NPU 12 = (0,1,1) that has moved by 5 =
// (1,1,0) is, seen from where it stands, for (3,0,1) = 3+4·(0+2·1) = 11.
func TestPacketDst(t *testing.T) {
	s, err := Parse("4x2x3")
	require.NoError(t, err)
	m := fabric.NewMessage(0, 12, 256)
	require.Equal(t, 12, s.PacketDst(fabric.PacketOf(m, 0)))
	p := fabric.PacketOf(m, 0)
	p.Shift = 5
	require.Equal(t, 11, s.PacketDst(p))
}
