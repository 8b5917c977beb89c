package fabric

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/stretchr/testify/require"
)

// Table V: intra-package 200 GB/s, 90 cycles; inter-package 25 GB/s, 500
// cycles; 94 % efficiency. At 1245 MHz the payload rates are
// 200e9·0.94/1.245e9 = 37600/249 and 25e9·0.94/1.245e9 = 4700/249 B/cycle.
var (
	intraRate = rtl.Rate{Num: 37600, Den: 249}
	interRate = rtl.Rate{Num: 4700, Den: 249}
)

func params(name string, r rtl.Rate, lat rtl.Cycle, tx, rx int) LinkParams {
	return LinkParams{Name: name, Rate: r, Latency: lat, TxBuffer: tx, RxBuffer: rx, CreditLatency: lat}
}

// sink is a test endpoint: it records when packets arrive and takes them at
// once unless hold is set.
type sink struct {
	l       *Link
	hold    bool
	arrived []rtl.Cycle
	spaces  []rtl.Cycle
}

func (s *sink) PacketArrived(now rtl.Cycle, l *Link) {
	s.arrived = append(s.arrived, now)
	if !s.hold {
		_, ok := l.Receive()
		if !ok {
			panic("no packet")
		}
	}
}

func (s *sink) SpaceAvailable(now rtl.Cycle, l *Link) { s.spaces = append(s.spaces, now) }

func newTestLink(t *testing.T, p LinkParams) (*rtl.Kernel, *Link, *sink) {
	k := rtl.NewKernel()
	l, err := NewLink(k, 0, 0, 1, 0, p)
	require.NoError(t, err)
	s := &sink{l: l}
	l.Attach(s, s, false)
	return k, l, s
}

func sendAt(k *rtl.Kernel, at rtl.Cycle, l *Link, m *Message) {
	k.Schedule(at, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) {
		for i := int32(0); i < m.Packets; i++ {
			if !l.Send(PacketOf(m, i)) {
				panic("transmit buffer full")
			}
		}
	}), 0, 0)
}

func TestOnePacketOneLink(t *testing.T) {
	tests := []struct {
		name string
		p    LinkParams
		want rtl.Cycle
	}{
		// 256 B at 37600/249 B/cycle: 256·249/37600 = 1.695 cycles → last byte
		// out by cycle 2; + 90 cycles latency = 92.
		{"intra", params("intra", intraRate, 90, 32, 128), 92},
		// 256·249/4700 = 13.56 cycles → 14; + 500 = 514.
		{"inter", params("inter", interRate, 500, 32, 128), 514},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, l, s := newTestLink(t, tc.p)
			sendAt(k, 0, l, NewMessage(0, 1, 256))
			k.Run()
			require.Equal(t, []rtl.Cycle{tc.want}, s.arrived)
			require.Equal(t, int64(256), l.Bytes())
			require.True(t, l.Idle())
		})
	}
}

// A 32-packet (8 KB) message on an inter-package link: packets leave back to
// back at the exact fractional rate; packet i (1-based) has its last byte out
// at ceil(i·63744/4700) and arrives 500 cycles later. The last: 32·63744 =
// 2039808; /4700 = 434.0017 → 435; + 500 = 935.
func TestMessageOverInterLink(t *testing.T) {
	k, l, s := newTestLink(t, params("inter", interRate, 500, 32, 128))
	sendAt(k, 0, l, NewMessage(0, 1, 8192))
	k.Run()
	require.Len(t, s.arrived, 32)
	for i, got := range s.arrived {
		n := int64(i + 1)
		want := rtl.Cycle((n*63744+4699)/4700) + 500
		require.Equal(t, want, got, "packet %d", n)
	}
	require.Equal(t, rtl.Cycle(935), s.arrived[31])
	// Busy exactly 32 packets' worth: 2039808/4700 cycles.
	require.Equal(t, big.NewRat(2039808, 4700), l.BusyCycles())
}

// A receive buffer of 4 packets that the receiver does not drain: 4 packets
// go, the 5th and 6th wait in the transmit buffer. At cycle 2000 the receiver
// takes one packet; its credit is back at 2000 + 500 = 2500, when packet 5
// starts: last byte out at 2500 + 13.56 → 2514, in at 3014.
func TestFullReceiveBufferStallsSender(t *testing.T) {
	k, l, s := newTestLink(t, params("inter", interRate, 500, 8, 4))
	s.hold = true
	sendAt(k, 0, l, NewMessage(0, 1, 6*256))
	k.RunUntil(1999)
	// Packets 1..4 arrive at ceil(i·13.56)+500: 514, 528, 541, 555.
	require.Equal(t, []rtl.Cycle{514, 528, 541, 555}, s.arrived)
	require.Equal(t, 4, l.RxLen())
	require.Equal(t, 2, l.tx.Len(), "packets 5 and 6 are held back by credits")
	k.Schedule(2000, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) { l.Receive() }), 0, 0)
	k.Run()
	require.Equal(t, []rtl.Cycle{514, 528, 541, 555, 3014}, s.arrived)
	require.Equal(t, 1, l.tx.Len(), "packet 6 still waits for a credit")
	require.Equal(t, int64(5), l.Packets())
}

// A full transmit buffer refuses Send and calls SpaceAvailable when the
// serialiser takes the head packet: with 2 slots, packets 1 and 2 are
// accepted at cycle 0; packet 1 starts at once, so packet 3 fits too;
// packet 4 is refused. Packet 2 starts at 13.56 (event at cycle 14), which
// frees a slot: SpaceAvailable at 14.
func TestFullTransmitBufferRefusesSend(t *testing.T) {
	k, l, s := newTestLink(t, params("inter", interRate, 500, 2, 128))
	m := NewMessage(0, 1, 4*256)
	var accepted []bool
	k.Schedule(0, rtl.HandlerFunc(func(rtl.Cycle, int32, int64) {
		for i := int32(0); i < 4; i++ {
			accepted = append(accepted, l.Send(PacketOf(m, i)))
		}
	}), 0, 0)
	k.Run()
	require.Equal(t, []bool{true, true, true, false}, accepted)
	require.Equal(t, []rtl.Cycle{14}, s.spaces)
	require.Len(t, s.arrived, 3)
}

// With a receive buffer as large as the credit round trip needs, a long
// stream runs at the full exact rate: 4096 packets on an inter link end at
// ceil(4096·63744/4700) = ceil(55552.4) = 55553, in at 56053.
func TestStreamAtFullRate(t *testing.T) {
	k, l, s := newTestLink(t, params("inter", interRate, 500, 4096, 128))
	sendAt(k, 0, l, NewMessage(0, 1, 4096*256))
	k.Run()
	require.Equal(t, rtl.Cycle(56053), s.arrived[len(s.arrived)-1])
}

func TestLinkParamsValidate(t *testing.T) {
	good := params("inter", interRate, 500, 8, 8)
	require.NoError(t, good.Validate())
	bad := good
	bad.RxBuffer = 0
	require.ErrorContains(t, bad.Validate(), "receive buffer")
	bad = good
	bad.TxBuffer = 0
	require.ErrorContains(t, bad.Validate(), "transmit buffer")
	bad = good
	bad.Latency = -1
	require.ErrorContains(t, bad.Validate(), "latency")
	bad = good
	bad.Rate.Num = 1 << 31 // a credit's sub-cycle slack is kept in 32 bits
	require.ErrorContains(t, bad.Validate(), "too fine")
}

func TestPacketOf(t *testing.T) {
	m := NewMessage(0, 1, 600) // 256 + 256 + 88
	require.Equal(t, int32(3), m.Packets)
	require.Equal(t, int32(88), PacketOf(m, 2).Bytes)
	require.True(t, PacketOf(m, 2).Last())
	require.False(t, PacketOf(m, 1).Last())
}

func TestNetworkObserversSeeEveryPacket(t *testing.T) {
	k, l, _ := newTestLink(t, params("inter", interRate, 500, 32, 128))
	net := NewNetwork(2, 1)
	require.NoError(t, net.Add(l))
	require.Error(t, net.Add(l), "a port takes one link")
	var sent, received int
	net.SetObserver(observe.Func(func(e observe.Event) {
		switch e.Kind {
		case observe.PacketSent:
			sent++
			require.Equal(t, int64(256), e.Bytes)
			require.Greater(t, e.End, e.Cycle)
		case observe.PacketReceived:
			received++
		}
	}))
	sendAt(k, 0, l, NewMessage(0, 1, 512))
	k.Run()
	require.Equal(t, 2, sent)
	require.Equal(t, 2, received)
	// Busy: 2 packets of 256 B at 4700/249 B/cycle, 2·63744/4700 cycles.
	require.Equal(t, big.NewRat(2*63744, 4700), l.BusyCycles())
}
