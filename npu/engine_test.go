package npu

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// Two equal all-reduces issued together share the network: together they
// take longer than one alone but less than two back to back, and the policy
// decides which finishes first (LIFO: the one issued last).
func TestEngineRunsCollectivesConcurrentlyByPolicy(t *testing.T) {
	k, net, plan := setup(t, "4x2x1", 512<<10, 65536, 8192)
	alone, err := RunIdeal(k, net, plan, DefaultIdeal())
	require.NoError(t, err)

	for _, pol := range []afi.Order{afi.FIFO, afi.LIFO} {
		k, net, plan := setup(t, "4x2x1", 512<<10, 65536, 8192)
		e, err := NewIdealEngine(k, net, plan.Machine, DefaultIdeal())
		require.NoError(t, err)
		e.SetOrder(pol)
		var first, second rtl.Cycle
		require.NoError(t, e.Issue(0, plan, func(now rtl.Cycle) { first = now }))
		require.NoError(t, e.Issue(0, plan, func(now rtl.Cycle) { second = now }))
		require.Equal(t, 2, e.Unfinished())
		k.Run()
		require.NoError(t, e.Stuck())
		require.Zero(t, e.Unfinished())
		last := max(first, second)
		require.Greater(t, last, alone.Cycles, pol)
		require.Less(t, last, 2*alone.Cycles, pol)
		if pol == afi.FIFO {
			require.Less(t, first, second, "FIFO: the first issued finishes first")
		} else {
			require.Less(t, second, first, "LIFO: the last issued finishes first")
		}
	}
}

// A collective issued later starts later: issued at cycle 10000 on an idle
// network it takes exactly as long as at cycle 0.
func TestEngineIssueAtALaterCycle(t *testing.T) {
	k, net, plan := setup(t, "4x1x1", 64<<10, 65536, 8192)
	alone, err := RunBaseline(k, net, plan, commOpt())
	require.NoError(t, err)
	k, net, plan = setup(t, "4x1x1", 64<<10, 65536, 8192)
	e, err := NewBaselineEngine(k, net, plan.Machine, DefaultBaseline(6, big.NewRat(450, 1)))
	require.NoError(t, err)
	var end rtl.Cycle
	require.NoError(t, e.Issue(10000, plan, func(now rtl.Cycle) { end = now }))
	k.Run()
	require.NoError(t, e.Stuck())
	require.Equal(t, 10000+alone.Cycles, end)
	sent, read, _ := e.Traffic()
	require.Equal(t, alone.BytesSent, sent)
	require.Equal(t, alone.MemRead, read)
	require.Positive(t, e.SMBusy(end))
}

func TestEngineRefusesMismatches(t *testing.T) {
	k, net, _ := setup(t, "4x1x1", 4096, 65536, 8192)
	_, _, other := setup(t, "4x2x1", 4096, 65536, 8192)
	_, _, plan := setup(t, "4x1x1", 4096, 65536, 8192)
	e, err := NewIdealEngine(k, net, plan.Machine, DefaultIdeal())
	require.NoError(t, err)
	require.ErrorContains(t, e.Issue(0, other, nil), "planned for 4x2x1")
	k.Schedule(50, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) {}), 0, 0)
	k.Run()
	require.ErrorContains(t, e.Issue(10, plan, nil), "before the current cycle")
	_, err = afi.ParseOrder("random")
	require.ErrorContains(t, err, "lifo or fifo")
}
