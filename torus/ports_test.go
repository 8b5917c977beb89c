package torus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	localPlus  = Port{Local, Plus}
	localMinus = Port{Local, Minus}
	vertPlus   = Port{Vertical, Plus}
	vertMinus  = Port{Vertical, Minus}
	horizPlus  = Port{Horizontal, Plus}
	horizMinus = Port{Horizontal, Minus}
	allPorts   = []Port{localPlus, localMinus, vertPlus, vertMinus, horizPlus, horizMinus}
	shape444   = Shape{4, 4, 4}
	shape484   = Shape{4, 8, 4}
	shape232   = Shape{2, 3, 2}
)

func TestPortIndexStringClass(t *testing.T) {
	tests := []struct {
		port  Port
		index int // int(Dim)*2 + int(Dir)
		str   string
		class LinkClass
	}{
		{localPlus, 0, "local+", Intra},       // 0*2 + 0
		{localMinus, 1, "local-", Intra},      // 0*2 + 1
		{vertPlus, 2, "vertical+", Inter},     // 1*2 + 0
		{vertMinus, 3, "vertical-", Inter},    // 1*2 + 1
		{horizPlus, 4, "horizontal+", Inter},  // 2*2 + 0
		{horizMinus, 5, "horizontal-", Inter}, // 2*2 + 1
	}
	require.Len(t, tests, NumPorts)
	for _, tt := range tests {
		t.Run(tt.str, func(t *testing.T) {
			assert.Equal(t, tt.index, tt.port.Index())
			assert.Equal(t, tt.port, PortFromIndex(tt.index))
			assert.Equal(t, tt.str, tt.port.String())
			assert.Equal(t, tt.class, tt.port.Class())
			assert.Equal(t, tt.port, tt.port.Opposite().Opposite())
			assert.Equal(t, tt.port.Dim, tt.port.Opposite().Dim)
			assert.NotEqual(t, tt.port.Dir, tt.port.Opposite().Dir)
		})
	}
	assert.Panics(t, func() { PortFromIndex(-1) })
	assert.Panics(t, func() { PortFromIndex(NumPorts) })
}

func TestPorts(t *testing.T) {
	tests := []struct {
		shape Shape
		want  []Port
	}{
		{shape444, allPorts},
		{shape232, allPorts}, // size-2 dims keep both ports
		{Shape{1, 1, 1}, []Port{}},
		{Shape{4, 1, 1}, []Port{localPlus, localMinus}},
		{Shape{1, 4, 1}, []Port{vertPlus, vertMinus}},
		{Shape{1, 1, 2}, []Port{horizPlus, horizMinus}},
		{Shape{1, 8, 4}, []Port{vertPlus, vertMinus, horizPlus, horizMinus}},
	}
	for _, tt := range tests {
		t.Run(tt.shape.String(), func(t *testing.T) {
			got := tt.shape.Ports()
			assert.Equal(t, tt.want, got)
			for _, p := range allPorts {
				assert.Equal(t, tt.shape.Size(p.Dim) > 1, tt.shape.HasPort(p), "%s", p)
			}
		})
	}
}

func TestNeighbor(t *testing.T) {
	tests := []struct {
		name  string
		shape Shape
		id    int
		port  Port
		want  int
	}{
		// 4x4x4: id = l + 4*(v + 4*h).
		// (3,0,0) = 3; local+ wraps l 3 -> 0: (0,0,0) = 0.
		{"444 local+ wraps", shape444, 3, localPlus, 0},
		// (3,0,0) = 3; local- : (2,0,0) = 2.
		{"444 local-", shape444, 3, localMinus, 2},
		// (0,0,0) = 0; vertical- wraps v 0 -> 3: (0,3,0) = 0 + 4*3 = 12.
		{"444 vertical- wraps", shape444, 0, vertMinus, 12},
		// (2,1,3) = 2 + 4*(1+4*3) = 2 + 52 = 54; horizontal+ wraps h 3 -> 0:
		// (2,1,0) = 2 + 4*1 = 6.
		{"444 horizontal+ wraps", shape444, 54, horizPlus, 6},
		// (2,1,3) = 54; horizontal- : (2,1,2) = 2 + 4*(1+8) = 38.
		{"444 horizontal-", shape444, 54, horizMinus, 38},
		// (1,2,1) = 1 + 4*(2+4) = 25; vertical+ : (1,3,1) = 1 + 4*(3+4) = 29.
		{"444 vertical+", shape444, 25, vertPlus, 29},

		// 4x8x4: id = l + 4*(v + 8*h).
		// (1,7,2) = 1 + 4*(7+16) = 93; vertical+ wraps v 7 -> 0:
		// (1,0,2) = 1 + 4*(0+16) = 65.
		{"484 vertical+ wraps", shape484, 93, vertPlus, 65},
		// (1,7,2) = 93; vertical- : (1,6,2) = 1 + 4*(6+16) = 89.
		{"484 vertical-", shape484, 93, vertMinus, 89},
		// (0,3,1) = 0 + 4*(3+8) = 44; local- wraps l 0 -> 3: (3,3,1) = 47.
		{"484 local- wraps", shape484, 44, localMinus, 47},
		// (2,5,3) = 2 + 4*(5+24) = 118; horizontal+ wraps h 3 -> 0:
		// (2,5,0) = 2 + 4*5 = 22.
		{"484 horizontal+ wraps", shape484, 118, horizPlus, 22},
		// (2,5,0) = 22; horizontal- wraps h 0 -> 3: (2,5,3) = 118.
		{"484 horizontal- wraps", shape484, 22, horizMinus, 118},

		// 2x3x2: id = l + 2*(v + 3*h). (0,1,1) = 0 + 2*(1+3) = 8.
		// Size-2 local ring: both ports reach (1,1,1) = 9.
		{"size-2 local+", shape232, 8, localPlus, 9},
		{"size-2 local-", shape232, 8, localMinus, 9},
		// Size-2 horizontal ring: both ports reach (0,1,0) = 0 + 2*1 = 2.
		{"size-2 horizontal+", shape232, 8, horizPlus, 2},
		{"size-2 horizontal-", shape232, 8, horizMinus, 2},
		// Size-3 vertical ring: + reaches (0,2,1) = 2*(2+3) = 10,
		// - reaches (0,0,1) = 2*(0+3) = 6.
		{"size-3 vertical+", shape232, 8, vertPlus, 10},
		{"size-3 vertical-", shape232, 8, vertMinus, 6},
		// And back from the neighbour: (1,1,1) = 9 reaches 8 both ways.
		{"size-2 local+ back", shape232, 9, localPlus, 8},
		{"size-2 local- back", shape232, 9, localMinus, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.True(t, tt.shape.HasPort(tt.port))
			got := tt.shape.Neighbor(tt.id, tt.port)
			assert.Equal(t, tt.want, got)
			// The opposite port of the neighbour leads back.
			assert.Equal(t, tt.id, tt.shape.Neighbor(got, tt.port.Opposite()))
		})
	}
}

func TestNeighborSize1Panics(t *testing.T) {
	tests := []struct {
		shape Shape
		port  Port
	}{
		{Shape{4, 1, 1}, vertPlus},
		{Shape{4, 1, 1}, vertMinus},
		{Shape{4, 1, 1}, horizPlus},
		{Shape{1, 4, 4}, localMinus},
		{Shape{1, 1, 1}, localPlus},
	}
	for _, tt := range tests {
		t.Run(tt.shape.String()+" "+tt.port.String(), func(t *testing.T) {
			assert.False(t, tt.shape.HasPort(tt.port))
			assert.Panics(t, func() { tt.shape.Neighbor(0, tt.port) })
		})
	}
}

// Every NPU's links, over all shapes with sizes 1..4, are consistent: a
// port's link goes to another NPU on the same ring, one step away, and the
// neighbour's opposite port comes back.
func TestNeighborConsistent(t *testing.T) {
	for l := 1; l <= 4; l++ {
		for v := 1; v <= 4; v++ {
			for h := 1; h <= 4; h++ {
				s := Shape{l, v, h}
				for id := range s.N() {
					for _, p := range s.Ports() {
						nb := s.Neighbor(id, p)
						require.NotEqual(t, id, nb, "%s NPU %d %s", s, id, p)
						require.Contains(t, s.Ring(id, p.Dim), nb)
						require.Equal(t, 1, s.Distance(id, nb))
						require.Equal(t, id, s.Neighbor(nb, p.Opposite()))
					}
				}
			}
		}
	}
}
