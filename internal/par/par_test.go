package par

import (
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDoFillsEveryIndexAndReportsTheFirstError(t *testing.T) {
	for _, w := range []int{0, 1, 3, 50} {
		out := make([]int, 20)
		i, err := Do(len(out), w, func(i int) error { out[i] = i * i; return nil })
		require.NoError(t, err)
		require.Equal(t, -1, i)
		for k, v := range out {
			require.Equal(t, k*k, v)
		}
		i, err = Do(10, w, func(i int) error {
			if i == 4 || i == 7 {
				return errors.New("bad")
			}
			return nil
		})
		require.Error(t, err)
		require.Equal(t, 4, i, "the lowest failing index, whatever the workers")
	}
}

// DoReport reports once per call that returns, counting up to n, one
// report at a time, whatever the number of workers.
func TestDoReportCountsEveryCall(t *testing.T) {
	for _, workers := range []int{1, 3, 0} {
		var got []int
		_, err := DoReport(50, workers, func(int) error { return nil }, func(done, n int) {
			require.Equal(t, 50, n)
			got = append(got, done)
		})
		require.NoError(t, err)
		require.Len(t, got, 50)
		for i, d := range got {
			require.Equal(t, i+1, d)
		}
	}
}

// A worker count far beyond the jobs starts no more goroutines than jobs:
// a billion workers for three jobs is cheap.
func TestHugeWorkerCountsCostNothing(t *testing.T) {
	var mu sync.Mutex
	var peak int
	before := runtime.NumGoroutine()
	_, err := Do(3, 1_000_000_000, func(int) error {
		mu.Lock()
		defer mu.Unlock()
		peak = max(peak, runtime.NumGoroutine()-before)
		return nil
	})
	require.NoError(t, err)
	require.LessOrEqual(t, peak, 3)
}
