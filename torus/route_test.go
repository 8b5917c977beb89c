package torus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoute(t *testing.T) {
	tests := []struct {
		name     string
		shape    Shape
		src, dst int
		want     []Hop
	}{
		{
			// 4x8x4, id = l + 4*(v + 8*h). From (0,0,0) = 0 to
			// (3,6,1) = 3 + 4*(6+8) = 59.
			// local: diff (3-0) mod 4 = 3 > 4-3 = 1 → Minus, one hop,
			//   l 0 → 3 (wrap): (3,0,0) = 3.
			// vertical: diff 6 mod 8 = 6 > 8-6 = 2 → Minus, two hops,
			//   v 0 → 7 (wrap): (3,7,0) = 3 + 28 = 31; v 7 → 6: (3,6,0) = 3 + 24 = 27.
			// horizontal: diff 1 < 4-1 = 3 → Plus, one hop,
			//   h 0 → 1: (3,6,1) = 59.
			name: "484 wrap minus", shape: shape484, src: 0, dst: 59,
			want: []Hop{
				{0, localMinus, 3},
				{3, vertMinus, 31},
				{31, vertMinus, 27},
				{27, horizPlus, 59},
			},
		},
		{
			// The reverse, 59 → 0: local diff (0-3) mod 4 = 1 → Plus,
			// l 3 → 0 (wrap): (0,6,1) = 4*(6+8) = 56. vertical diff (0-6)
			// mod 8 = 2 < 6 → Plus, v 6 → 7: (0,7,1) = 4*15 = 60, v 7 → 0
			// (wrap): (0,0,1) = 32. horizontal diff (0-1) mod 4 = 3 > 1 →
			// Minus, h 1 → 0: 0.
			name: "484 reverse", shape: shape484, src: 59, dst: 0,
			want: []Hop{
				{59, localPlus, 56},
				{56, vertPlus, 60},
				{60, vertPlus, 32},
				{32, horizMinus, 0},
			},
		},
		{
			// 4x4x4, id = l + 4*(v + 4*h). Tie in every dimension: from
			// (0,0,0) = 0 to (2,2,2) = 2 + 4*(2+8) = 42, each diff is
			// 2 = 4/2 → Plus.
			// local: 0 → 1 → 2. vertical: (2,1,0) = 6, (2,2,0) = 10.
			// horizontal: (2,2,1) = 2 + 4*(2+4) = 26, (2,2,2) = 42.
			name: "444 tie takes plus", shape: shape444, src: 0, dst: 42,
			want: []Hop{
				{0, localPlus, 1},
				{1, localPlus, 2},
				{2, vertPlus, 6},
				{6, vertPlus, 10},
				{10, horizPlus, 26},
				{26, horizPlus, 42},
			},
		},
		{
			// The tie the other way, 42 → 0: every diff is (0-2) mod 4 = 2
			// → still Plus, wrapping. local: (3,2,2) = 3 + 40 = 43, (0,2,2)
			// = 40. vertical: (0,3,2) = 4*(3+8) = 44, (0,0,2) = 32.
			// horizontal: (0,0,3) = 48, (0,0,0) = 0.
			name: "444 tie reverse wraps plus", shape: shape444, src: 42, dst: 0,
			want: []Hop{
				{42, localPlus, 43},
				{43, localPlus, 40},
				{40, vertPlus, 44},
				{44, vertPlus, 32},
				{32, horizPlus, 48},
				{48, horizPlus, 0},
			},
		},
		{
			// 4x4x4 from (3,3,0) = 3 + 12 = 15 to (0,0,3) = 4*12 = 48.
			// local: diff (0-3) mod 4 = 1 → Plus, l 3 → 0: (0,3,0) = 12.
			// vertical: diff (0-3) mod 4 = 1 → Plus, v 3 → 0: (0,0,0) = 0.
			// horizontal: diff 3 > 1 → Minus, h 0 → 3: (0,0,3) = 48.
			name: "444 wrap every dim", shape: shape444, src: 15, dst: 48,
			want: []Hop{
				{15, localPlus, 12},
				{12, vertPlus, 0},
				{0, horizMinus, 48},
			},
		},
		{
			// 4x4x4, only horizontal differs: (1,2,3) = 1 + 4*(2+12) = 57
			// to (1,2,0) = 1 + 8 = 9; diff (0-3) mod 4 = 1 → Plus, wraps.
			name: "444 one dim", shape: shape444, src: 57, dst: 9,
			want: []Hop{{57, horizPlus, 9}},
		},
		{
			// 2x3x2, id = l + 2*(v + 3*h). From 0 to (1,2,1) = 1 + 2*(2+3)
			// = 11. local: size 2, diff 1 = 2/2 → Plus: (1,0,0) = 1.
			// vertical: size 3, diff 2 > 3-2 = 1 → Minus, v 0 → 2:
			// (1,2,0) = 1 + 4 = 5. horizontal: size 2, diff 1 → Plus:
			// (1,2,1) = 11.
			name: "232 size 2", shape: shape232, src: 0, dst: 11,
			want: []Hop{
				{0, localPlus, 1},
				{1, vertMinus, 5},
				{5, horizPlus, 11},
			},
		},
		{
			// 4x1x1: only a local ring. 1 → 3: diff 2 = 4/2 → Plus, 1 → 2 → 3.
			name: "411 local only", shape: Shape{4, 1, 1}, src: 1, dst: 3,
			want: []Hop{
				{1, localPlus, 2},
				{2, localPlus, 3},
			},
		},
		{
			name: "same NPU", shape: shape484, src: 93, dst: 93,
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.shape.Route(tt.src, tt.dst)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, len(tt.want), tt.shape.Distance(tt.src, tt.dst))

			p, ok := tt.shape.NextHop(tt.src, tt.dst)
			if len(tt.want) == 0 {
				assert.False(t, ok)
				assert.Empty(t, got)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.want[0].Port, p)
		})
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		name     string
		shape    Shape
		src, dst int
		want     int
	}{
		// 4x8x4: (0,0,0) → (3,6,1) = 59: min(3,1) + min(6,2) + min(1,3)
		// = 1 + 2 + 1 = 4.
		{"484 route example", shape484, 0, 59, 4},
		// 4x8x4: (0,0,0) → (2,4,2) = 2 + 4*(4+16) = 82: the farthest,
		// min(2,2) + min(4,4) + min(2,2) = 2 + 4 + 2 = 8.
		{"484 farthest", shape484, 0, 82, 8},
		// 4x8x4: (1,1,1) = 1 + 4*(1+8) = 37 → (1,5,3) = 1 + 4*(5+24) = 117:
		// min(0,4) + min(4,4) + min(2,2) = 0 + 4 + 2 = 6.
		{"484 vertical and horizontal", shape484, 37, 117, 6},
		// 4x8x4: (3,7,3) = 127 → (0,0,0) = 0: diffs (0-3) mod 4 = 1,
		// (0-7) mod 8 = 1, (0-3) mod 4 = 1, all Plus: 1 + 1 + 1 = 3.
		{"484 corner to origin", shape484, 127, 0, 3},
		// 4x4x4: (0,0,0) → (2,2,2) = 42: 2 + 2 + 2 = 6.
		{"444 ties", shape444, 0, 42, 6},
		// 4x4x4: (3,3,0) = 15 → (0,0,3) = 48: 1 + 1 + 1 = 3.
		{"444 wraps", shape444, 15, 48, 3},
		// 2x3x4, id = l + 2*(v + 3*h): 0 → (1,2,2) = 1 + 2*(2+6) = 17:
		// min(1,1) + min(2,1) + min(2,2) = 1 + 1 + 2 = 4.
		{"234", Shape{2, 3, 4}, 0, 17, 4},
		{"same", shape444, 21, 21, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.shape.Distance(tt.src, tt.dst))
			assert.Len(t, tt.shape.Route(tt.src, tt.dst), tt.want)
		})
	}
}

// TestRouteProperty walks NextHop between every pair of NPUs and checks it
// against Neighbor, Distance and Route.
func TestRouteProperty(t *testing.T) {
	for _, s := range []Shape{{2, 3, 4}, shape444, shape232, {1, 5, 1}} {
		t.Run(s.String(), func(t *testing.T) {
			for src := range s.N() {
				for dst := range s.N() {
					dist := s.Distance(src, dst)
					// Distance is the sum over dims of min(d, n-d), d the
					// coordinate difference mod n.
					a, b := s.Coord(src), s.Coord(dst)
					want := 0
					for d := range Dim(NumDims) {
						n := s.Size(d)
						diff := ((b[d]-a[d])%n + n) % n
						want += min(diff, n-diff)
					}
					require.Equal(t, want, dist, "Distance(%d,%d)", src, dst)
					require.Equal(t, dist, s.Distance(dst, src), "symmetric")

					route := s.Route(src, dst)
					require.Len(t, route, dist)
					cur, hops := src, 0
					lastDim := Dim(-1)
					for {
						p, ok := s.NextHop(cur, dst)
						if !ok {
							break
						}
						require.Less(t, hops, dist, "%d→%d overshoots", src, dst)
						require.True(t, s.HasPort(p))
						// Dimension order: never back to an earlier dimension.
						require.GreaterOrEqual(t, p.Dim, lastDim)
						lastDim = p.Dim
						next := s.Neighbor(cur, p)
						require.Equal(t, Hop{From: cur, Port: p, To: next}, route[hops])
						// Each hop brings dst one step closer.
						require.Equal(t, s.Distance(cur, dst)-1, s.Distance(next, dst))
						cur = next
						hops++
					}
					require.Equal(t, dst, cur)
					require.Equal(t, dist, hops)
				}
			}
		})
	}
}

func TestHopString(t *testing.T) {
	assert.Equal(t, "3->31 via vertical-", Hop{3, vertMinus, 31}.String())
}

func BenchmarkNextHop(b *testing.B) {
	s := shape484
	n := s.N()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		src, dst := i%n, (i*37+11)%n
		s.NextHop(src, dst)
		i++
	}
}

func BenchmarkRoute(b *testing.B) {
	s := shape484
	n := s.N()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		src, dst := i%n, (i*37+11)%n
		s.Route(src, dst)
		i++
	}
}
