package fabric

import (
	"cmp"
	"math/big"
	"testing"

	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// Links of 2 B/cycle: a full packet serialises in 256/2 = 128 cycles.
var twoPerCycle = rtl.Rate{Num: 2, Den: 1}

// got is a packet an NPU received: when, from which NPU, which packet.
type got struct {
	at         rtl.Cycle
	src, index int
}

// swNPU is a test NPU on a switch: it sends its queue into its one link,
// as far as the transmit buffer takes it, the rest when room frees, and
// takes every packet at once.
type swNPU struct {
	out     *Link
	queue   []Packet
	refused int         // Sends refused
	spaces  []rtl.Cycle // SpaceAvailable calls
	got     []got
}

func (e *swNPU) PacketArrived(now rtl.Cycle, l *Link) {
	p, ok := l.Receive()
	if !ok {
		panic("no packet")
	}
	e.got = append(e.got, got{now, int(p.Msg.Src), int(p.Index)})
}

func (e *swNPU) SpaceAvailable(now rtl.Cycle, _ *Link) {
	e.spaces = append(e.spaces, now)
	e.push()
}

func (e *swNPU) push() {
	for len(e.queue) > 0 {
		if !e.out.Send(e.queue[0]) {
			e.refused++
			return
		}
		e.queue = e.queue[1:]
	}
}

// send queues a message of n bytes from e's NPU src to dst.
func (e *swNPU) send(src, dst int, n int64) {
	m := NewMessage(src, dst, n)
	for i := range m.Packets {
		e.queue = append(e.queue, PacketOf(m, i))
	}
}

// star is n NPUs on one switch (node n): NPU i's port 0 goes to the
// switch's input i, and the switch's output i to NPU i, which is where it
// routes packets for NPU i.
type star struct {
	k    *rtl.Kernel
	net  *Network
	sw   *Switch
	npus []*swNPU
	up   []*Link // NPU i → switch
	down []*Link // switch → NPU i
}

func newStar(t *testing.T, n int, latency rtl.Cycle, up LinkParams, down func(i int) LinkParams) *star {
	t.Helper()
	s := &star{k: rtl.NewKernel(), net: NewNetwork(n, 1)}
	route := make([]int, n)
	for i := range route {
		route[i] = i
	}
	var err error
	s.sw, err = s.net.AddSwitch(s.k, SwitchParams{Name: "star", Ports: n, Latency: latency}, route)
	require.NoError(t, err)
	for i := range n {
		u, err := NewLink(s.k, 2*i, i, n, 0, up)
		require.NoError(t, err)
		require.NoError(t, s.net.AddToSwitch(u, i))
		d, err := NewSwitchLink(s.k, 2*i+1, n, i, i, down(i))
		require.NoError(t, err)
		require.NoError(t, s.net.Add(d))
		s.up, s.down = append(s.up, u), append(s.down, d)
		s.npus = append(s.npus, &swNPU{out: u})
	}
	require.NoError(t, s.net.Check())
	eps := make([]Endpoint, n)
	for i, e := range s.npus {
		eps[i] = e
	}
	s.net.Attach(eps)
	return s
}

// run starts every NPU's sends at cycle 0 and runs to the end.
func (s *star) run() {
	s.k.Schedule(0, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) {
		for _, e := range s.npus {
			e.push()
		}
	}), 0, 0)
	s.k.Run()
}

// drained checks that nothing is left anywhere.
func (s *star) drained(t *testing.T) {
	t.Helper()
	for _, l := range s.net.Links {
		require.True(t, l.Idle(), "%s", l.Describe())
	}
	require.Zero(t, s.sw.Held())
	for i, e := range s.npus {
		require.Empty(t, e.queue, "NPU %d", i)
	}
}

func same(p LinkParams) func(int) LinkParams { return func(int) LinkParams { return p } }

// oneSlot is p with a transmit buffer of one packet.
func oneSlot(p LinkParams) LinkParams {
	p.TxBuffer = 1
	return p
}

// slowAt gives output port slow a link of 1 B/cycle (256 cycles a
// packet) with a transmit buffer of one packet, and the others p.
func slowAt(slow int, p LinkParams) func(int) LinkParams {
	return func(i int) LinkParams {
		if i == slow {
			q := oneSlot(p)
			q.Name, q.Rate = "slow", rtl.Rate{Num: 1, Den: 1}
			return q
		}
		return p
	}
}

// One packet NPU 0 → link → switch → link → NPU 1, every link 10 cycles
// of latency (credits as long):
//
//   - 256 B at 2 B/cycle, switching latency 5: the last byte leaves NPU 0
//     at 256/2 = 128, is in the switch's input buffer at 128 + 10 = 138,
//     eligible at 138 + 5 = 143, when it starts on the free output link:
//     last byte out at 143 + 128 = 271, wholly at NPU 1 at 271 + 10 = 281.
//   - the same with no switching latency: 138 + 128 + 10 = 276.
//   - 100 B: 100/2 = 50 cycles a link: 50 + 10 + 5 + 50 + 10 = 125.
//   - 256 B at 3 B/cycle: 256/3 = 85⅓, so the last byte is out at 85⅓,
//     counted at cycle 86; in at 96, eligible at 101, out at 101 + 85⅓ =
//     186⅓ → 187, in at 197.
func TestSwitchOnePacket(t *testing.T) {
	tests := []struct {
		name    string
		bytes   int64
		rate    rtl.Rate
		latency rtl.Cycle
		want    rtl.Cycle
	}{
		{"256 B, switching 5", 256, twoPerCycle, 5, 281},
		{"256 B, switching 0", 256, twoPerCycle, 0, 276},
		{"100 B, switching 5", 100, twoPerCycle, 5, 125},
		{"256 B at 3 B/cycle", 256, rtl.Rate{Num: 3, Den: 1}, 5, 197},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := params("l", tc.rate, 10, 4, 4)
			s := newStar(t, 2, tc.latency, p, same(p))
			s.npus[0].send(0, 1, tc.bytes)
			s.run()
			require.Equal(t, []got{{tc.want, 0, 0}}, s.npus[1].got)
			require.Equal(t, int64(1), s.sw.Forwarded())
			s.drained(t)
		})
	}
}

// The same packet through two switches in series, A (node 2) and B (node
// 3): in A's input at 138, eligible at 143, out of A by 271, in B's input
// at 281, eligible at 286, out of B by 286 + 128 = 414, at NPU 1 at 424.
func TestSwitchesInSeries(t *testing.T) {
	k := rtl.NewKernel()
	net := NewNetwork(2, 1)
	p := params("l", twoPerCycle, 10, 4, 4)
	// A: port 0 to B, port 1 to NPU 0. B: port 0 to NPU 1, port 1 to A.
	a, err := net.AddSwitch(k, SwitchParams{Name: "A", Ports: 2, Latency: 5}, []int{1, 0})
	require.NoError(t, err)
	b, err := net.AddSwitch(k, SwitchParams{Name: "B", Ports: 2, Latency: 5}, []int{1, 0})
	require.NoError(t, err)
	require.Equal(t, []int{2, 3}, []int{a.Node, b.Node})
	link := func(id, src, dst, port int) *Link {
		var l *Link
		var err error
		if net.Switch(src) != nil {
			l, err = NewSwitchLink(k, id, src, dst, port, p)
		} else {
			l, err = NewLink(k, id, src, dst, port, p)
		}
		require.NoError(t, err)
		return l
	}
	require.NoError(t, net.AddToSwitch(link(0, 0, 2, 0), 1)) // NPU 0 → A
	require.NoError(t, net.AddToSwitch(link(1, 1, 3, 0), 0)) // NPU 1 → B
	require.NoError(t, net.AddToSwitch(link(2, 2, 3, 0), 1)) // A → B
	require.NoError(t, net.AddToSwitch(link(3, 3, 2, 1), 0)) // B → A
	require.NoError(t, net.Add(link(4, 2, 0, 1)))            // A → NPU 0
	require.NoError(t, net.Add(link(5, 3, 1, 0)))            // B → NPU 1
	require.NoError(t, net.Check())
	src, dst := &swNPU{out: net.Out(0, 0)}, &swNPU{out: net.Out(1, 0)}
	net.Attach([]Endpoint{src, dst})
	src.send(0, 1, 256)
	k.Schedule(0, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) { src.push() }), 0, 0)
	k.Run()
	require.Equal(t, []got{{424, 0, 0}}, dst.got)
	require.Equal(t, "link 2 (l, switch node 2 → switch node 3)", net.Links[2].String())
	require.Equal(t, []*Link{net.Links[5]}, net.In(1))
}

// A stream of 16 packets with nothing contending leaves the switch back to
// back: packet i is eligible at 143 + 128i (it reaches the switch 128
// cycles after the one before), when the output link has just finished
// packet i−1, so it starts at once and arrives at 281 + 128i: no bubble.
// Credits keep up: packet i's credit is back at NPU 0 at 143 + 128i + 10,
// before packet i + 2 would start, at 128(i + 2); at NPU 1's end, it is
// back at 281 + 128i + 10, before packet i + 2 starts, at 143 + 128(i + 2).
func TestSwitchStreamsAtFullRate(t *testing.T) {
	p := params("l", twoPerCycle, 10, 4, 4)
	s := newStar(t, 2, 5, p, same(oneSlot(p)))
	s.npus[0].send(0, 1, 16*256)
	s.run()
	require.Len(t, s.npus[1].got, 16)
	for i, g := range s.npus[1].got {
		require.Equal(t, got{281 + 128*rtl.Cycle(i), 0, i}, g)
	}
	// Busy exactly 16 packets' time, 16 × 128 cycles.
	require.Equal(t, big.NewRat(16*128, 1), s.down[1].BusyCycles())
	s.drained(t)
}

// NPUs 0 and 1 each stream 40 packets to NPU 2; the output link (one
// packet of transmit buffer) is the bottleneck, and round robin shares it
// packet by packet. At 143 both heads are eligible: input 0 goes first
// (A0 starts, 143 to 271), then input 1 (B0 waits in the transmit
// buffer). At 271 B0 starts and A1 and B1 (in at 256 + 10, eligible at
// 271) ask: the output granted input 1 last, so A1 goes; B1 goes at 399
// when A1 starts, and so on: the output never idles, and its packet j
// arrives at 281 + 128j, A's at even j and B's at odd: each stream gets
// half. The last, j = 79, at 281 + 128 × 79 = 10393. The inputs keep up:
// A_i is granted at 256i + 15 and is eligible long before (its link
// waits for credits from A_8 on, but starts A_i by 256i − 999 + 128).
func TestSwitchSharesAnOutputRoundRobin(t *testing.T) {
	p := params("l", twoPerCycle, 10, 4, 4)
	s := newStar(t, 3, 5, p, same(oneSlot(p)))
	s.npus[0].send(0, 2, 40*256)
	s.npus[1].send(1, 2, 40*256)
	s.run()
	arrived := s.npus[2].got
	require.Equal(t, []got{{281, 0, 0}, {409, 1, 0}, {537, 0, 1}, {665, 1, 1}, {793, 0, 2}, {921, 1, 2}}, arrived[:6])
	require.Len(t, arrived, 80)
	for j, g := range arrived {
		require.Equal(t, got{281 + 128*rtl.Cycle(j), j % 2, j / 2}, g)
	}
	s.drained(t)
}

// A slow output (1 B/cycle: 256 cycles a packet) takes two streams of 24
// packets from inputs at 2 B/cycle with receive buffers of 2 and transmit
// buffers of 2. Output packet j starts at 143 + 256j (alternating A, B as
// above) and arrives at 409 + 256j; the last, j = 47, at 12441. A_i is
// granted when output packet 2i − 1 starts, at 512i − 113, and B_i at
// 512i + 143: each flow moves a packet per 512 cycles, a quarter of its
// link's rate, so its input buffer fills and holds its credits. Then
// NPU 0's link starts A_i only when A_{i−2}'s credit is back, 10 cycles
// after its grant, at 512i − 1127 (from i = 3; A_1 and A_2 start at 128
// and 256 as the link frees): the sender, refused at once, hears of room
// at those cycles, 512 apart, not the 128 its link could do.
//
// At 4950, A_9 was granted at 4495 and its credit started A_11 at 4505,
// in at 4643; B_9 at 4751, B_11 in at 4899: both input buffers hold two
// packets, no credit is free, and both senders' transmit buffers are
// full. The switch holds those 4 packets and has forwarded output packets
// 0 to 19 (B_9 is j = 19, granted at 143 + 256 × 18 = 4751), and output 2
// waits for room (A_10 asks).
func TestSwitchBackPressure(t *testing.T) {
	up := params("l", twoPerCycle, 10, 2, 2)
	s := newStar(t, 3, 5, up, slowAt(2, up))
	s.npus[0].send(0, 2, 24*256)
	s.npus[1].send(1, 2, 24*256)
	s.k.Schedule(0, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) {
		s.npus[0].push()
		s.npus[1].push()
	}), 0, 0)
	s.k.RunUntil(4950)
	for i := range 2 {
		in := s.up[i]
		require.Equal(t, 2, in.RxLen(), "input %d's buffer is full", i)
		require.True(t, in.creditStalled, "%s", in.Describe())
		require.Zero(t, in.TxSpace(), "NPU %d's transmit buffer is full", i)
		require.NotEmpty(t, s.npus[i].queue, "NPU %d still has packets to send", i)
		require.Positive(t, s.npus[i].refused)
	}
	require.Contains(t, s.net.StuckReport(nil, 5),
		"switches holding packets:\n  switch \"star\" (node 3): 4 packets in its input buffers, 20 forwarded, outputs waiting for room: 1")
	s.k.Run()

	want := []rtl.Cycle{128, 256}
	for i := 3; i <= 21; i++ { // the sender puts A_{i+2} in as A_i starts; the last is A_23
		want = append(want, 512*rtl.Cycle(i)-1127)
	}
	require.Equal(t, want, s.npus[0].spaces)
	// Nothing lost or reordered: each flow's packets in order, the two
	// alternating, the output never idle.
	arrived := s.npus[2].got
	require.Len(t, arrived, 48)
	for j, g := range arrived {
		require.Equal(t, got{409 + 256*rtl.Cycle(j), j % 2, j / 2}, g)
	}
	require.Equal(t, rtl.Cycle(12441), arrived[47].at)
	s.drained(t)
}

// Head-of-line blocking: one FIFO per input. Output 2 is slow (1
// B/cycle). At 143 it takes X (input 0; starts, 143 to 399) and Y (input
// 1; waits in its transmit buffer), and W, at the head of input 3, waits
// for room. Z, behind W on input 3, is for the idle output 0 and eligible
// at 266 + 5 = 271, but it waits behind W: W moves at 399, when Y starts,
// and Z at once after it, out by 399 + 128 = 527, at NPU 0 at 537 (with a
// queue per output it would have left at 271 and arrived at 409).
func TestSwitchHeadOfLineBlocking(t *testing.T) {
	up := params("l", twoPerCycle, 10, 4, 4)
	s := newStar(t, 4, 5, up, slowAt(2, up))
	s.npus[0].send(0, 2, 256) // X
	s.npus[1].send(1, 2, 256) // Y
	s.npus[3].send(3, 2, 256) // W
	s.npus[3].send(3, 0, 256) // Z
	s.run()
	require.Equal(t, []got{{537, 3, 0}}, s.npus[0].got)
	// X, Y, W back to back on the slow link: in at 399 + 10, 655 + 10, 911 + 10.
	require.Equal(t, []got{{409, 0, 0}, {665, 1, 0}, {921, 3, 0}}, s.npus[2].got)
	s.drained(t)
}

// A 64-port switch, every NPU on its own port, beyond the 16 ports the
// kernel's per-port classes allow.
//
//   - shift: NPU i sends one packet to NPU i + 1 (mod 64): no two share an
//     output, so each arrives as the lone packet does, at 281.
//   - all to one: NPUs 1 to 63 send a packet to NPU 0; all are eligible
//     at 143, and output 0 takes them in input order (round robin from
//     input 0): the packet of NPU k starts at 143 + 128(k − 1) and
//     arrives at 153 + 128k; NPU 63's at 8217.
func TestSwitchOf64Ports(t *testing.T) {
	const n = 64
	tests := []struct {
		name string
		dst  func(i int) int // −1: no packet
		want func(s *star) [][]got
	}{
		{"shift", func(i int) int { return (i + 1) % n }, func(s *star) [][]got {
			w := make([][]got, n)
			for i := range w {
				w[i] = []got{{281, (i + n - 1) % n, 0}}
			}
			return w
		}},
		{"all to one", func(i int) int {
			if i == 0 {
				return -1
			}
			return 0
		}, func(s *star) [][]got {
			w := make([][]got, n)
			for k := 1; k < n; k++ {
				w[0] = append(w[0], got{153 + 128*rtl.Cycle(k), k, 0})
			}
			return w
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := params("l", twoPerCycle, 10, 1, 4)
			s := newStar(t, n, 5, p, same(p))
			for i := range n {
				if d := tc.dst(i); d >= 0 {
					s.npus[i].send(i, d, 256)
				}
			}
			s.run()
			want := tc.want(s)
			for i := range n {
				if len(want[i]) == 0 {
					require.Empty(t, s.npus[i].got, "NPU %d", i)
					continue
				}
				require.Equal(t, want[i], s.npus[i].got, "NPU %d", i)
			}
			s.drained(t)
		})
	}
	require.Equal(t, 8217, 153+128*63)
}

// twoNPUs returns a kernel and a network of 2 NPUs of one port each,
// with, if sw, switch "s" (node 2) of 2 ports routing NPU d to port d.
func twoNPUs(t *testing.T, sw bool) (*rtl.Kernel, *Network) {
	k, net := rtl.NewKernel(), NewNetwork(2, 1)
	if sw {
		_, err := net.AddSwitch(k, SwitchParams{Name: "s", Ports: 2}, []int{0, 1})
		require.NoError(t, err)
	}
	return k, net
}

// addOne makes a link (with NewSwitchLink if fromSwitch) and adds it
// with AddToSwitch at input port in, or with Add if in < 0.
func addOne(k *rtl.Kernel, net *Network, fromSwitch bool, id, src, dst, port, in int, p LinkParams) error {
	newLink := NewLink
	if fromSwitch {
		newLink = NewSwitchLink
	}
	l, err := newLink(k, id, src, dst, port, p)
	if err != nil {
		return err
	}
	if in < 0 {
		return net.Add(l)
	}
	return net.AddToSwitch(l, in)
}

// Bad input is refused with an error that says what is wrong.
func TestSwitchRefusesBadInput(t *testing.T) {
	p := params("l", twoPerCycle, 10, 4, 4)
	tests := []struct {
		name  string
		sw    bool // the network has switch "s" (twoNPUs)
		build func(k *rtl.Kernel, net *Network) error
		want  string
	}{
		{"zero ports", false, func(k *rtl.Kernel, net *Network) error {
			_, err := net.AddSwitch(k, SwitchParams{Name: "s"}, []int{0, 0})
			return err
		}, `switch "s": 0 ports: needs at least 1`},
		{"too many ports", false, func(k *rtl.Kernel, net *Network) error {
			_, err := net.AddSwitch(k, SwitchParams{Name: "s", Ports: MaxSwitchPorts + 1}, []int{0, 0})
			return err
		}, "at most 1024"},
		{"negative latency", false, func(k *rtl.Kernel, net *Network) error {
			_, err := net.AddSwitch(k, SwitchParams{Name: "s", Ports: 2, Latency: -1}, []int{0, 1})
			return err
		}, "must not be negative"},
		{"routing table too short", false, func(k *rtl.Kernel, net *Network) error {
			_, err := net.AddSwitch(k, SwitchParams{Name: "s", Ports: 2}, []int{0})
			return err
		}, "its routing table has 1 NPUs; the network has 2"},
		{"route to a port it lacks", false, func(k *rtl.Kernel, net *Network) error {
			_, err := net.AddSwitch(k, SwitchParams{Name: "s", Ports: 2}, []int{0, 2})
			return err
		}, `switch "s" (node 2): NPU 1 routes to port 2, outside [0,2)`},
		{"route to a port with no link", true, func(k *rtl.Kernel, net *Network) error {
			return cmp.Or(addOne(k, net, true, 0, 2, 0, 0, -1, p), net.Check())
		}, "NPU 1 routes to output port 1, which has no link"},
		{"input port taken twice", true, func(k *rtl.Kernel, net *Network) error {
			return cmp.Or(addOne(k, net, false, 0, 0, 2, 0, 1, p), addOne(k, net, false, 1, 1, 2, 0, 1, p))
		}, "input port 1 already receives from link 0"},
		{"a link added twice", true, func(k *rtl.Kernel, net *Network) error {
			l, _ := NewSwitchLink(k, 0, 2, 0, 0, p)
			if err := net.Add(l); err != nil {
				return err
			}
			return net.Add(l)
		}, "output port 0 already sends into link 0"},
		{"a port beyond any switch", false, func(k *rtl.Kernel, net *Network) error {
			_, err := NewSwitchLink(k, 0, 2, 0, MaxSwitchPorts, p)
			return err
		}, "port 1024 outside [0,1024)"},
		{"a loop of switches", false, func(k *rtl.Kernel, net *Network) error {
			// A (node 2) sends NPU 1's packets to B (node 3), and B sends
			// them back to A.
			_, errA := net.AddSwitch(k, SwitchParams{Name: "A", Ports: 2}, []int{0, 1})
			_, errB := net.AddSwitch(k, SwitchParams{Name: "B", Ports: 2}, []int{0, 0})
			return cmp.Or(errA, errB,
				addOne(k, net, true, 0, 2, 0, 0, -1, p), // A → NPU 0
				addOne(k, net, true, 1, 2, 3, 1, 0, p),  // A → B
				addOne(k, net, true, 2, 3, 2, 0, 0, p),  // B → A
				net.Check())
		}, `switch "A" (node 2): a packet for NPU 1 goes round a loop of switches`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, net := twoNPUs(t, tc.sw)
			require.ErrorContains(t, tc.build(k, net), tc.want)
		})
	}
	k := rtl.NewKernel()
	_, err := NewFoldedNetwork(4, 1).AddSwitch(k, SwitchParams{Name: "s", Ports: 2}, []int{0, 1, 2, 3})
	require.ErrorContains(t, err, "a folded network has no switches")
}

// A single link that cannot join the network is refused, with an error
// that says why.
func TestSwitchRefusesBadLinks(t *testing.T) {
	tests := []struct {
		name               string
		sw                 bool // the network has switch "s" (twoNPUs)
		fromSwitch         bool // made with NewSwitchLink
		src, dst, port, in int  // in < 0: added with Add, else AddToSwitch at in
		want               string
	}{
		{"input port out of range", true, false, 0, 2, 0, 2, "input port 2 outside [0,2)"},
		{"output port out of range", true, true, 2, 0, 5, -1, "output port 5 outside [0,2)"},
		{"a switch's link made by NewLink", true, false, 2, 0, 0, -1, "make it with NewSwitchLink"},
		{"NewSwitchLink out of an NPU", false, true, 0, 1, 0, -1, "made with NewSwitchLink, but node 0 is not a switch"},
		{"Add of a link into a switch", true, false, 0, 2, 0, -1, "add it with AddToSwitch"},
		{"AddToSwitch of a link into an NPU", false, false, 0, 1, 0, 0, "node 1 is not a switch of this network"},
		{"a link to no node", false, false, 0, 7, 0, -1, "NPU 7 out of range (2 NPUs, 0 switches)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, net := twoNPUs(t, tc.sw)
			err := addOne(k, net, tc.fromSwitch, 0, tc.src, tc.dst, tc.port, tc.in, params("l", twoPerCycle, 10, 4, 4))
			require.ErrorContains(t, err, tc.want)
		})
	}
}
