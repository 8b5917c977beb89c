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
