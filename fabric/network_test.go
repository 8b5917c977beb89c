package fabric

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// A folded network has NPU 0's links only; every NPU's port leads to them,
// and they all arrive back at NPU 0. A full network lists each NPU's
// incoming links in the order of the ports they leave their senders by.
func TestFoldedNetwork(t *testing.T) {
	k := rtl.NewKernel()
	p := LinkParams{Name: "intra", Rate: rtl.Rate{Num: 1, Den: 1}, Latency: 1, TxBuffer: 1, RxBuffer: 1, CreditLatency: 1}
	f := NewFoldedNetwork(4, 2)
	for port, dst := range []int{1, 3} {
		l, err := NewLink(k, port, 0, dst, port, p)
		require.NoError(t, err)
		require.NoError(t, f.Add(l))
	}
	bad, err := NewLink(k, 2, 1, 2, 0, p)
	require.NoError(t, err)
	require.ErrorContains(t, f.Add(bad), "links out of NPU 0 only")
	require.True(t, f.Folded())
	require.Equal(t, 4, f.NPUs())
	require.Same(t, f.Out(0, 1), f.Out(3, 1))
	require.Equal(t, f.Links, f.In(2))

	full := NewNetwork(3, 2)
	// Ring of 3: port 0 to the next NPU, port 1 to the previous, added
	// port-major so that link ids and port order disagree.
	for port := 0; port < 2; port++ {
		for src := 0; src < 3; src++ {
			dst := (src + 1) % 3
			if port == 1 {
				dst = (src + 2) % 3
			}
			l, err := NewLink(k, len(full.Links), src, dst, port, p)
			require.NoError(t, err)
			require.NoError(t, full.Add(l))
		}
	}
	in := full.In(0)
	require.Len(t, in, 2)
	require.Equal(t, []int{0, 1}, []int{in[0].Port, in[1].Port})
	require.Equal(t, []int{2, 1}, []int{in[0].Src, in[1].Src})
	require.False(t, full.Folded())
}

// Two links of different rates in windows of 10 cycles: 3 B/cycle busy
// [8, 23) and 2 B/cycle busy [0, 5). Window 0 holds 2 + 5 = 7 busy link
// cycles of 20: 0.35; window 1 10/20 = 0.5; window 2 3 of 2 links × 5
// cycles (the run ends at 25): 0.3. MeanUtilization is the whole run's.
func TestLinkUtilizationWindows(t *testing.T) {
	k := rtl.NewKernel()
	net := NewNetwork(2, 1)
	fast, err := NewLink(k, 0, 0, 1, 0, LinkParams{Name: "a", Rate: rtl.Rate{Num: 3, Den: 1}, Latency: 1, TxBuffer: 4, RxBuffer: 4, CreditLatency: 1})
	require.NoError(t, err)
	slow, err := NewLink(k, 1, 1, 0, 0, LinkParams{Name: "b", Rate: rtl.Rate{Num: 2, Den: 1}, Latency: 1, TxBuffer: 4, RxBuffer: 4, CreditLatency: 1})
	require.NoError(t, err)
	require.NoError(t, net.Add(fast))
	require.NoError(t, net.Add(slow))
	sink := &sinkEP{}
	net.Attach([]Endpoint{sink, sink})
	net.TrackWindows(10)
	net.TrackLinkWindows()
	require.True(t, slow.Send(PacketOf(NewMessage(1, 0, 10), 0)))
	k.Schedule(8, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) {
		require.True(t, fast.Send(PacketOf(NewMessage(0, 1, 45), 0)))
	}), 0, 0)
	k.Run()
	require.Equal(t, []float64{0.35, 0.5, 0.3}, net.LinkUtilization(25))
	// Over the whole run: 15 + 5 busy cycles of 2 links × 25 cycles = 0.4;
	// the fast link alone 15/25 = 0.6; no links or no cycles, 0.
	require.Equal(t, 0.4, MeanUtilization(net.Links, 25))
	require.Equal(t, 0.6, MeanUtilization([]*Link{fast}, 25))
	require.Zero(t, MeanUtilization(nil, 25))
	require.Zero(t, MeanUtilization(net.Links, 0))
	require.Equal(t, 0.5, net.PeakLinkUtilization(25))
	// Per link over the 25 cycles: fast is busy 15 cycles (0.6), its
	// windows 2/10, 10/10 and 3/5, so its peak is 1; slow 5 cycles
	// (0.2), all in window 0: 5/10.
	require.Equal(t, []LinkStat{
		{ID: 0, Src: 0, Dst: 1, Port: 0, Class: "a", Packets: 1, Bytes: 45, Busy: big.NewRat(15, 1), Utilization: 0.6, Peak: 1, HasPeak: true},
		{ID: 1, Src: 1, Dst: 0, Port: 0, Class: "b", Packets: 1, Bytes: 10, Busy: big.NewRat(5, 1), Utilization: 0.2, Peak: 0.5, HasPeak: true},
	}, net.LinkStats(25))
}

// Without TrackLinkWindows a link's stats have no peak; with a run of no
// cycles, no share.
func TestLinkStatsWithoutWindows(t *testing.T) {
	k := rtl.NewKernel()
	net := NewNetwork(2, 1)
	l, err := NewLink(k, 0, 0, 1, 0, LinkParams{Name: "a", Rate: rtl.Rate{Num: 2, Den: 1}, Latency: 1, TxBuffer: 4, RxBuffer: 4, CreditLatency: 1})
	require.NoError(t, err)
	require.NoError(t, net.Add(l))
	sink := &sinkEP{}
	net.Attach([]Endpoint{sink, sink})
	for i := range int32(3) { // 600 B in packets of 256, 256 and 88: 300 cycles
		require.True(t, l.Send(PacketOf(NewMessage(0, 1, 600), i)))
	}
	k.Run()
	for _, tc := range []struct {
		cycles rtl.Cycle
		util   float64
	}{{400, 0.75}, {0, 0}} {
		require.Equal(t, []LinkStat{{Class: "a", Src: 0, Dst: 1, Packets: 3, Bytes: 600, Busy: big.NewRat(300, 1), Utilization: tc.util}}, net.LinkStats(tc.cycles))
	}
	require.Panics(t, net.TrackLinkWindows)
}

// sinkEP takes every packet at once.
type sinkEP struct{}

func (sinkEP) PacketArrived(_ rtl.Cycle, l *Link) { l.Receive() }
func (sinkEP) SpaceAvailable(rtl.Cycle, *Link)    {}

// A stuck report never prints a blank list: with no chunk line and no
// link holding packets it says so (a run stopped before its chunks began).
func TestStuckReportIsNeverBlank(t *testing.T) {
	k := rtl.NewKernel()
	p := LinkParams{Name: "intra", Rate: rtl.Rate{Num: 1, Den: 1}, Latency: 1, TxBuffer: 1, RxBuffer: 1, CreditLatency: 1}
	f := NewFoldedNetwork(2, 1)
	l, err := NewLink(k, 0, 0, 1, 0, p)
	require.NoError(t, err)
	require.NoError(t, f.Add(l))
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{nil, "  no chunk under way on a simulated NPU (those unfinished have not started)\nlinks holding packets: none"},
		{[]string{"NPU 0 chunk 3 waits"}, "  NPU 0 chunk 3 waits\nlinks holding packets: none"},
	} {
		require.Equal(t, tc.want, f.StuckReport(tc.lines, 5))
	}
}
