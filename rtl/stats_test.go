package rtl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMeanRoundsDown(t *testing.T) {
	require.Equal(t, int64(0), Mean(nil))
	require.Equal(t, int64(2), Mean([]int64{1, 2, 4})) // 7/3 = 2.33 → 2
	require.Equal(t, int64(5), Mean([]int64{5}))
}

func TestSpanOverlap(t *testing.T) {
	for _, tc := range []struct {
		a, b Span
		want Cycle
	}{
		{Span{0, 10}, Span{5, 20}, 5},    // cycles 5..9
		{Span{0, 10}, Span{10, 20}, 0},   // touching: none in common
		{Span{3, 4}, Span{0, 100}, 1},    // inside
		{Span{10, 5}, Span{0, 100}, 0},   // empty
		{Span{0, 100}, Span{20, 30}, 10}, // contains
	} {
		require.Equal(t, tc.want, tc.a.Overlap(tc.b), "%v %v", tc.a, tc.b)
		require.Equal(t, tc.want, tc.b.Overlap(tc.a), "%v %v", tc.b, tc.a)
	}
	// Busy 0..10 and 20..30 within passes 5..25 and 28..40: 5 + 5 + 2.
	busy := []Span{{0, 10}, {20, 30}}
	passes := []Span{{5, 25}, {28, 40}}
	require.Equal(t, Cycle(12), OverlapAll(busy, passes))
	require.Equal(t, Cycle(32), TotalLen(passes))
}
