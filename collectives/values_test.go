package collectives

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A view of chunk bytes [2,4) then [6,9): view offsets 1..3 are chunk bytes
// 3, 6, 7.
func TestGatherScatterFollowTheView(t *testing.T) {
	vals := []int64{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}
	view := []Range{{2, 2}, {6, 3}}
	require.Equal(t, []int64{30, 60, 70}, Gather(vals, view, Range{1, 3}))
	Scatter(vals, view, Range{1, 3}, []int64{1, 2, 3}, true)
	require.Equal(t, []int64{0, 10, 20, 31, 40, 50, 62, 73, 80, 90}, vals)
	Scatter(vals, view, Range{0, 2}, []int64{5, 5}, false)
	require.Equal(t, []int64{0, 10, 5, 5, 40, 50, 62, 73, 80, 90}, vals)
}
