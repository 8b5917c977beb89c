package fabric

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acemu/acemu/observe"

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

// wakeSet.first finds the earliest cycle held at or after now: in now's
// word of the bitmap, later words, the window's far end (which shares
// now's word, below now's bit) and the far slice.
func TestWakeSetFirst(t *testing.T) {
	type add struct{ now, at rtl.Cycle } // at held from cycle now
	cases := []struct {
		name    string
		added   []add
		now     rtl.Cycle // when first is asked
		want    rtl.Cycle
		wantAny bool
	}{
		{"none", nil, 0, 0, false},
		{"now itself", []add{{0, 0}, {0, 5}}, 0, 0, true},
		{"the next in now's word", []add{{0, 5}, {0, 70}}, 3, 5, true},
		{"in a later word", []add{{0, 70}, {0, 700}}, 64, 70, true},
		// From 100 (word 1, bit 36) the window runs to 1123; 1060 =
		// 16×64 + 36 is bit 36 of word 0 (16 mod 16), the last word
		// looked at.
		{"the window's far end", []add{{100, 1060}}, 100, 1060, true},
		{"far, nothing near", []add{{0, 5000}}, 10, 5000, true},
		// 1100 was added far (from 0), 1500 near (from 600).
		{"far before near", []add{{0, 1100}, {600, 1500}}, 600, 1100, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w wakeSet
			for _, a := range c.added {
				w.add(a.now, a.at)
			}
			got, ok := w.first(c.now)
			require.Equal(t, c.wantAny, ok)
			if ok {
				require.Equal(t, c.want, got)
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

// swTrainRun is one random trainRun whose link goes into a switch, with a
// second sender competing for the switch's one output, and the links
// beyond: the switch takes the train's packets as its output frees.
type swTrainRun struct {
	trainRun
	latency     rtl.Cycle  // the switch's
	other, down LinkParams // the second sender's link in, the output link
	rival       []int64    // the second sender's messages, from cycle 0
}

func randomSwTrainRun(r *rand.Rand) swTrainRun {
	c := swTrainRun{trainRun: randomTrainRun(r), latency: rtl.Cycle(r.IntN(3) * r.IntN(30))}
	c.p.CreditLatency = max(c.p.CreditLatency, 1) // the switch collects
	link := func() LinkParams {
		q := randomTrainRun(r).p
		q.CreditLatency = max(q.CreditLatency, 1)
		return q
	}
	c.other, c.down = link(), link()
	for i := r.IntN(4); i > 0; i-- {
		c.rival = append(c.rival, 1+r.Int64N(50000))
	}
	return c
}

// swTrainTrace runs c with per-packet events or with trains into the
// switch: the packets sent and received on the output link (sorted), when
// each message was all in the train's link, the receiver's arrivals and
// what the probes read of the train's link, in order, its counts at the
// end, and its trains.
func swTrainTrace(t *testing.T, c swTrainRun, perPacket bool) ([]string, []string, TrainCounts) {
	k := rtl.NewKernel()
	net := NewNetwork(3, 4)
	sw, err := net.AddSwitch(k, SwitchParams{Name: "s", Ports: 2, Latency: c.latency}, []int{0, 0, 0})
	require.NoError(t, err)
	l, err := NewLink(k, 0, 0, sw.Node, 3, c.p)
	require.NoError(t, err)
	require.NoError(t, net.AddToSwitch(l, 0))
	o, err := NewLink(k, 1, 2, sw.Node, 0, c.other)
	require.NoError(t, err)
	require.NoError(t, net.AddToSwitch(o, 1))
	down, err := NewSwitchLink(k, 2, sw.Node, 1, 0, c.down)
	require.NoError(t, err)
	require.NoError(t, net.Add(down))
	net.SetPerPacket(perPacket)
	f, rx, rival := &feeder{l: l, runs: c.runs && !perPacket, asks: c.asks}, &taker{}, &swNPU{out: o}
	net.Attach([]Endpoint{f, rx, rival})
	require.Equal(t, !perPacket, sw.collects)
	var packets []string
	down.SetObserver(observe.Func(func(e observe.Event) {
		packets = append(packets, fmt.Sprintf("%d %d %d m%d #%d %dB", e.Kind, e.Cycle, e.End, e.Op, e.Index, e.Bytes))
	}))
	for i, size := range c.rival {
		rival.send(2, 1, size)
		rival.queue[len(rival.queue)-1].Msg.Op = int32(100 + i)
	}
	k.Schedule(0, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) { rival.push() }), 0, 0)
	c.schedule(k, f, rx)
	k.Run()
	for _, x := range net.Links {
		require.True(t, x.Idle(), "%s", x.Describe())
	}
	slices.Sort(packets)
	end := fmt.Sprintf("%d packets, %d B, busy %s", l.Packets(), l.Bytes(), l.BusyCycles().RatString())
	return packets, slices.Concat(f.done, rx.got, []string{end}), l.Trains()
}

// Trains on a link into a switch that collects its packets (planTrain,
// each done by its first packet's arrival, on the credits the switch has
// returned by then) give every packet leaving the switch the cycles the
// per-packet path gives, the sender the same cycles its messages are all
// in, and reads of the link's counts during trains the same counts, on
// random links, switching latencies, buffers and messages, with a second
// sender competing for the switch's output (so that the switch takes the
// train's packets, and returns their credits, late).
func TestTrainsIntoASwitchChangeNoPacket(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	sum := sameWithTrains(t, 400, func() (any, traceOf) {
		c := randomSwTrainRun(r)
		return c, func(perPacket bool) ([]string, []string, TrainCounts) { return swTrainTrace(t, c, perPacket) }
	})
	requireEveryKind(t, sum)
}
