package memsys

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

func r(a, b int64) *big.Rat { return big.NewRat(a, b) }

// Each case: clients (weight, limit, jobs submitted at cycle 0), the memory
// rate, and the cycles at which the jobs finish, computed by hand in the
// case's comment.
func TestSharedMemoryFinishesWhereComputed(t *testing.T) {
	type cl struct {
		weight, limit *big.Rat
		jobs          []int64
	}
	for _, tc := range []struct {
		name    string
		rate    *big.Rat
		clients []cl
		want    [][]rtl.Cycle
	}{
		// 1000 B at 100 B/cycle: 10 cycles.
		{"alone", r(100, 1), []cl{{r(1, 1), nil, []int64{1000}}}, [][]rtl.Cycle{{10}}},
		// Equal weights: 50 B/cycle each; B's 500 B end at 10, when A has
		// 500 of 1000 left, then alone at 100 B/cycle: 5 more, 15.
		{"equal", r(100, 1), []cl{{r(1, 1), nil, []int64{1000}}, {r(1, 1), nil, []int64{500}}}, [][]rtl.Cycle{{15}, {10}}},
		// Weights 3:1 on 80 B/cycle: 60 and 20; A's 600 B end at 10, B has
		// 200 of 600, then 80 B/cycle: 400 / 80 = 5 more, 15. A kernel
		// (B) slows by exactly what the stream (A) takes: alone it would
		// end at 600 / 80 = 7.5, observed at 8.
		{"weights 3:1", r(80, 1), []cl{{r(3, 1), nil, []int64{600}}, {r(1, 1), nil, []int64{600}}}, [][]rtl.Cycle{{10}, {15}}},
		// A limited to 20 B/cycle: B gets the other 80; 200 / 20 = 10 and
		// 800 / 80 = 10.
		{"limit", r(100, 1), []cl{{r(1, 1), r(20, 1), []int64{200}}, {r(1, 1), nil, []int64{800}}}, [][]rtl.Cycle{{10}, {10}}},
		// A limit above the share does not bind: 50 each.
		{"loose limit", r(100, 1), []cl{{r(1, 1), r(70, 1), []int64{500}}, {r(1, 1), nil, []int64{500}}}, [][]rtl.Cycle{{10}, {10}}},
		// 3 B/cycle, two 4 B jobs: the first ends at 4/3, observed at 2,
		// with 6 B moved: 2 B go to the second job, whose other 2 B take
		// 2/3 of a cycle: observed at 3 (8 B by 8/3).
		{"inside a cycle", r(3, 1), []cl{{r(1, 1), nil, []int64{4, 4}}}, [][]rtl.Cycle{{2, 3}}},
		// 900 GB/s at 1245 MHz = 60000/83 B/cycle: 722 B take
		// 722 × 83 / 60000 = 0.9988 cycles, observed at 1; 60000 B take 83.
		{"900 GB/s", r(60000, 83), []cl{{r(1, 1), nil, []int64{722, 60000 - 722}}}, [][]rtl.Cycle{{1, 83}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := rtl.NewKernel()
			s, err := New(k, tc.rate)
			require.NoError(t, err)
			got := make([][]rtl.Cycle, len(tc.clients))
			for i, c := range tc.clients {
				x, err := s.Client("c", c.weight, c.limit)
				require.NoError(t, err)
				for range c.jobs {
					got[i] = append(got[i], -1)
				}
				for j, b := range c.jobs {
					require.NoError(t, x.Submit(0, b, func(now rtl.Cycle) { got[i][j] = now }))
				}
			}
			k.Run()
			require.Equal(t, tc.want, got)
		})
	}
}

// A job submitted while others run takes its share from then on: A alone
// at 100 B/cycle moves 500 B by cycle 5; B arrives and both get 50: A's
// other 500 B take 10 more cycles (15), B's 200 B take 4 (9); then A has
// 500 − 4 × 50 = 300 left at 9, alone: 3 more, 12.
func TestALateJobTakesItsShareFromThen(t *testing.T) {
	k := rtl.NewKernel()
	s, err := New(k, r(100, 1))
	require.NoError(t, err)
	a, err := s.Client("a", r(1, 1), nil)
	require.NoError(t, err)
	b, err := s.Client("b", r(1, 1), nil)
	require.NoError(t, err)
	var endA, endB rtl.Cycle
	require.NoError(t, a.Submit(0, 1000, func(now rtl.Cycle) { endA = now }))
	k.Schedule(5, rtl.HandlerFunc(func(now rtl.Cycle, _ int32, _ int64) {
		require.NoError(t, b.Submit(now, 200, func(now rtl.Cycle) { endB = now }))
	}), 0, 0)
	k.Run()
	require.Equal(t, rtl.Cycle(12), endA)
	require.Equal(t, rtl.Cycle(9), endB)
	require.Equal(t, r(1000, 1), a.Moved())
	require.Equal(t, r(200, 1), b.Moved())
}

func TestBadInputsAreRefused(t *testing.T) {
	k := rtl.NewKernel()
	_, err := New(k, r(0, 1))
	require.ErrorContains(t, err, "positive")
	s, err := New(k, r(1, 1))
	require.NoError(t, err)
	_, err = s.Client("x", r(0, 1), nil)
	require.ErrorContains(t, err, "weight must be positive")
	_, err = s.Client("x", r(1, 1), r(-1, 1))
	require.ErrorContains(t, err, "limit must be positive")
	c, err := s.Client("x", r(1, 1), nil)
	require.NoError(t, err)
	require.ErrorContains(t, c.Submit(0, 0, nil), "positive size")
	require.ErrorContains(t, c.Submit(3, 10, nil), "not the current cycle")
}
