package npu

import (
	"errors"
	"math/big"
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// A collective run with its own SMs (afi.IssueOptions.SMs, LIBRA's
// per-collective thread allocation) takes exactly what it takes on an
// engine configured with those SMs, its traffic the same; the next one
// with 0 goes back to the system's SMs, exactly as a system's engine runs
// it.
func TestACollectiveRunsOnItsOwnSMs(t *testing.T) {
	mem := big.NewRat(450, 1)
	alone := func(sms int) *Result {
		k, net, plan := setup(t, "4x2x1", 256<<10, 65536, 8192)
		r, err := RunBaseline(k, net, plan, DefaultBaseline(sms, mem))
		require.NoError(t, err)
		return r
	}
	for _, tc := range []struct{ system, own int }{{6, 1}, {6, 8}, {2, 4}, {6, 6}} {
		want := alone(tc.own)
		back := alone(tc.system)
		k, net, plan := setup(t, "4x2x1", 256<<10, 65536, 8192)
		e, err := NewBaselineEngine(k, net, plan.Machine, DefaultBaseline(tc.system, mem))
		require.NoError(t, err)
		var heard []int
		e.OnCommSMs(func(_ rtl.Cycle, sms int) error { heard = append(heard, sms); return nil })
		var end rtl.Cycle
		require.NoError(t, e.IssueWith(0, plan, afi.IssueOptions{SMs: tc.own, Done: func(now rtl.Cycle) { end = now }}))
		require.Equal(t, tc.own, e.CommSMs())
		k.Run()
		require.NoError(t, e.Stuck())
		require.Equal(t, want.Cycles, end, "%d SMs of its own on a %d-SM system", tc.own, tc.system)
		sent, read, write := e.Traffic()
		require.Equal(t, want.BytesSent, sent)
		require.Equal(t, want.MemRead, read)
		require.Equal(t, want.MemWrite, write)
		// The next collective, with the system's SMs again.
		start := end
		require.NoError(t, e.IssueWith(start, plan, afi.IssueOptions{Done: func(now rtl.Cycle) { end = now }}))
		require.Equal(t, tc.system, e.CommSMs())
		k.Run()
		require.NoError(t, e.Stuck())
		require.Equal(t, back.Cycles, end-start)
		if tc.own == tc.system {
			require.Empty(t, heard, "no change, nothing to hear")
		} else {
			require.Equal(t, []int{tc.own, tc.system}, heard)
		}
	}
}

func TestOwnSMsRefused(t *testing.T) {
	mem := big.NewRat(450, 1)
	k, net, plan := setup(t, "4x1x1", 64<<10, 65536, 8192)
	e, err := NewBaselineEngine(k, net, plan.Machine, DefaultBaseline(6, mem))
	require.NoError(t, err)
	require.ErrorContains(t, e.IssueWith(0, plan, afi.IssueOptions{SMs: 81}), "the NPU has 80 SMs")
	require.ErrorContains(t, e.IssueWith(0, plan, afi.IssueOptions{SMs: -1}), "give 1..80")
	require.NoError(t, e.IssueWith(0, plan, afi.IssueOptions{SMs: 4}))
	require.NoError(t, e.IssueWith(0, plan, afi.IssueOptions{SMs: 4}), "the same SMs while one is in flight")
	require.ErrorContains(t, e.IssueWith(0, plan, afi.IssueOptions{SMs: 8}), "change only between collectives")
	require.ErrorContains(t, e.IssueWith(0, plan, afi.IssueOptions{}), "change only between collectives")
	require.Equal(t, 2, e.Unfinished(), "the refused ones were not issued")

	k, net, plan = setup(t, "4x1x1", 64<<10, 65536, 8192)
	e, err = NewBaselineEngine(k, net, plan.Machine, DefaultBaseline(6, mem))
	require.NoError(t, err)
	e.OnCommSMs(func(rtl.Cycle, int) error { return errRefused })
	require.ErrorIs(t, e.IssueWith(0, plan, afi.IssueOptions{SMs: 2}), errRefused)
	require.Equal(t, 6, e.CommSMs())
	require.Zero(t, e.Unfinished())

	k, net, plan = setup(t, "4x1x1", 64<<10, 65536, 8192)
	ideal, err := NewIdealEngine(k, net, plan.Machine, DefaultIdeal())
	require.NoError(t, err)
	require.ErrorContains(t, ideal.IssueWith(0, plan, afi.IssueOptions{SMs: 2}), "ideal endpoint, which uses no SMs")
}

var errRefused = errors.New("refused")
