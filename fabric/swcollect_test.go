package fabric

import (
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// twoSwitches is NPUs 0 and 1, two ports each, and switches A (node 2)
// and B (node 3): NPU i's port 0 goes to A's input i, its port 1 to B's;
// each switch's output j goes to NPU j, so each NPU receives from two
// links out of switches.
func twoSwitches(t *testing.T, p LinkParams) *Network {
	t.Helper()
	k := rtl.NewKernel()
	net := NewNetwork(2, 2)
	id := 0
	for port := range 2 {
		sw, err := net.AddSwitch(k, SwitchParams{Name: string(rune('A' + port)), Ports: 2}, []int{0, 1})
		require.NoError(t, err)
		for i := range 2 {
			u, err := NewLink(k, id, i, sw.Node, port, p)
			require.NoError(t, err)
			require.NoError(t, net.AddToSwitch(u, i))
			d, err := NewSwitchLink(k, id+1, sw.Node, i, i, p)
			require.NoError(t, err)
			require.NoError(t, net.Add(d))
			id += 2
		}
	}
	require.NoError(t, net.Check())
	return net
}

// A switch collects its input links' packets only where its arbitration's
// place among other switches' in a cycle changes nothing
// (Network.switchesCollect): not on the per-packet path, not with a link
// into a switch whose credits come back in the cycle they are returned,
// not with an NPU receiving from two links out of switches. Credits back
// to a switch in no time do not matter (a switch returns none of them).
func TestSwitchesCollectOnlyWhereNothingChanges(t *testing.T) {
	p := LinkParams{Name: "l", Rate: twoPerCycle, Latency: 10, TxBuffer: 4, RxBuffer: 4, CreditLatency: 10}
	noCredit := p
	noCredit.CreditLatency = 0
	cases := []struct {
		name      string
		net       func(t *testing.T) *Network
		perPacket bool
		want      bool
	}{
		{"star", func(t *testing.T) *Network { return newStar(t, 3, 0, p, same(p)).net }, false, true},
		{"star, per packet", func(t *testing.T) *Network { return newStar(t, 3, 0, p, same(p)).net }, true, false},
		{"star, credits into the switch in no time", func(t *testing.T) *Network { return newStar(t, 3, 0, noCredit, same(p)).net }, false, false},
		{"star, credits out of the switch in no time", func(t *testing.T) *Network { return newStar(t, 3, 0, p, same(noCredit)).net }, false, true},
		{"an NPU under two switches", func(t *testing.T) *Network { return twoSwitches(t, p) }, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			net := c.net(t)
			net.SetPerPacket(c.perPacket)
			eps := make([]Endpoint, net.NPUs())
			for i := range eps {
				eps[i] = &swNPU{}
			}
			net.Attach(eps)
			for _, sw := range net.Switches() {
				require.Equal(t, c.want, sw.collects, "%s", sw)
				for i := range sw.Params.Ports {
					require.Equal(t, c.want, sw.In(i).collector != nil, "%s", sw.In(i))
				}
			}
		})
	}
}

// A wakeSet holds each cycle once, near (less than wakeWindow = 1024
// cycles ahead, a bit each) or far (a sorted slice), and lets go of the
// earliest as its event runs, in time order.
func TestWakeSet(t *testing.T) {
	type step struct {
		now, at rtl.Cycle
		done    bool // let go of now's event instead of adding at
		had     bool // has(now, at) before adding
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"near, twice", []step{{0, 5, false, false}, {0, 5, false, true}, {5, 0, true, false}, {5, 5, false, false}}},
		// 1023 is the window's last cycle from 0, 1024 the first beyond.
		{"the window's edge", []step{{0, 1023, false, false}, {0, 1024, false, false}, {1, 1024, false, true}, {1023, 0, true, false}, {1023, 1023, false, false}, {1023, 1024, false, true}}},
		// Cycle 2048 shares cycle 0's bit; far at 0, it is near from
		// 1025 on, while cycle 1024 (its bit's other holder) has not run.
		{"far then in the window", []step{{0, 2048, false, false}, {1025, 2048, false, true}, {2048, 0, true, false}, {2048, 2048, false, false}}},
		{"one bit, two cycles apart by the window", []step{{0, 1000, false, false}, {1000, 0, true, false}, {1000, 2024, false, false}, {1000, 1000, false, false}, {1001, 2024, false, true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w wakeSet
			for i, s := range c.steps {
				if s.done {
					w.done(s.now)
					continue
				}
				require.Equal(t, s.had, w.has(s.now, s.at), "step %d", i)
				if !s.had {
					w.add(s.now, s.at)
				}
				require.True(t, w.has(s.now, s.at), "step %d", i)
			}
		})
	}
}

// A switching latency of 2000 cycles puts each arbitration beyond the
// wake bitmap's window (wakeSet): one 256 B packet at 2 B/cycle over
// links of 10 cycles is in the switch at 128 + 10 = 138, eligible at
// 138 + 2000 = 2138, out at 2138 + 128 = 2266, at NPU 1 at 2276.
func TestSwitchLatencyBeyondTheWakeWindow(t *testing.T) {
	p := LinkParams{Name: "l", Rate: twoPerCycle, Latency: 10, TxBuffer: 4, RxBuffer: 4, CreditLatency: 10}
	s := newStar(t, 2, 2000, p, same(p))
	require.True(t, s.sw.collects)
	s.npus[0].send(0, 1, 256)
	s.run()
	require.Equal(t, []got{{2276, 0, 0}}, s.npus[1].got)
	s.drained(t)
}
