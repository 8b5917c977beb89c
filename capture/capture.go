// Package capture writes the packets that cross a network's links as a
// pcap file and reads them back. Each packet is one record, stamped with
// the simulated time it starts on its link, in time order. Its fields are in a
// header of acemu's own under the user link type 147 (LINKTYPE_USER0):
// docs/packet-capture.md has the layout, a Wireshark dissector and the
// tshark command. The gopacket layer Layer decodes the header, so Go
// tools and tests read captures back with gopacket.
package capture

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// LinkType is the pcap link type of acemu's captures: the first of the
// link types libpcap leaves to users (DLT_USER0).
const LinkType = layers.LinkType(147)

// HeaderLen is the bytes of a record's header, all that is captured of a
// packet; the record's original length is the header and the packet's
// payload bytes, so tools show each packet's size.
const HeaderLen = 64

// Version is the header's layout version: 3 numbers phases from 1, as
// the timeline and microcode do (2 numbered them from 0).
const Version = 3

// magic opens every header: "AC".
const magic = 0x4143

// Header is one packet crossing one link: its hop, its message and where
// it is in the collective, and when it crossed. Big-endian, in this order:
//
//	 0  uint16  magic 0x4143 ("AC")
//	 2  uint8   version (3)
//	 3  uint8   sub-step that sent the message: 0 none (the endpoint has
//	            none), 1 send (ACE reads SRAM into the port), 2 forward
//	            (ACE passes on what a receive brings)
//	 4  uint32  link: its index in the network
//	 8  uint32  from: the NPU the link leaves (this hop's sender)
//	12  uint32  to: the NPU the link enters
//	16  uint32  source NPU of the message
//	20  uint32  destination NPU of the message
//	24  uint32  collective: its number in the run, in the order issued
//	28  uint32  chunk: its global number (the same on every NPU)
//	32  uint16  phase of the chunk (1: the first)
//	34  uint16  reserved (0)
//	36  uint32  message: the sending op's match (its receive's op number)
//	40  uint32  packet: its place in its message (0: the first)
//	44  uint32  bytes of payload
//	48  uint64  cycle the packet started on the link
//	56  uint64  cycle its last byte left (serialisation end)
type Header struct {
	Version, SubStep       uint8
	Link, From, To         uint32
	Src, Dst               uint32
	Collective, Chunk      uint32
	Phase                  uint16
	Message, Packet, Bytes uint32
	Cycle, End             uint64
	contents, payload      []byte
}

// Marshal writes h into b (HeaderLen bytes).
func (h *Header) Marshal(b []byte) {
	be := binary.BigEndian
	be.PutUint16(b[0:], magic)
	b[2], b[3] = Version, h.SubStep
	be.PutUint32(b[4:], h.Link)
	be.PutUint32(b[8:], h.From)
	be.PutUint32(b[12:], h.To)
	be.PutUint32(b[16:], h.Src)
	be.PutUint32(b[20:], h.Dst)
	be.PutUint32(b[24:], h.Collective)
	be.PutUint32(b[28:], h.Chunk)
	be.PutUint16(b[32:], h.Phase)
	be.PutUint16(b[34:], 0)
	be.PutUint32(b[36:], h.Message)
	be.PutUint32(b[40:], h.Packet)
	be.PutUint32(b[44:], h.Bytes)
	be.PutUint64(b[48:], h.Cycle)
	be.PutUint64(b[56:], h.End)
}

// Nanoseconds is simulated time in nanoseconds at the NPU clock
// (rtl.ClockHz: 1245 MHz, so a cycle is 200/249 ns), rounded to the
// nearest: what a capture's timestamps are.
func Nanoseconds(c rtl.Cycle) int64 { return c.TimeIn(1_000_000_000) }

// Writer is an observer (observe.Observer) that writes every packet sent
// on a link, as filter allows, to a pcap file, in time order: the network
// reports a train's packets late (fabric.Feeder), so the writer holds the
// packets at and after the network's horizon (fabric.Network.Horizon) and
// writes the others, by cycle, then in the order reported. Flush writes
// what is held at the end of the run.
type Writer struct {
	w       *pcapgo.Writer
	net     *fabric.Network
	filter  Filter
	held    records
	seq     int64
	checkAt int // len(held) at which to write what the horizon has passed
	buf     [HeaderLen]byte
	err     error
	n       int64
}

// record is a packet held for writing.
type record struct {
	h   Header
	seq int64
}

// records is a min-heap of records by cycle, then order reported.
type records []record

func (r records) Len() int { return len(r) }
func (r records) Less(i, j int) bool {
	return r[i].h.Cycle < r[j].h.Cycle || r[i].h.Cycle == r[j].h.Cycle && r[i].seq < r[j].seq
}
func (r records) Swap(i, j int) { r[i], r[j] = r[j], r[i] }
func (r *records) Push(x any)   { *r = append(*r, x.(record)) }
func (r *records) Pop() any {
	old := *r
	x := old[len(old)-1]
	*r = old[:len(old)-1]
	return x
}

// holdFrom is how many packets the writer holds before it looks at the
// horizon: the look visits every link, so it is done once per this many
// packets, or twice as many as are held (a long train holds back more).
const holdFrom = 4096

// NewWriter starts a capture of net's packets on out (nanosecond
// timestamps), keeping those filter allows.
func NewWriter(out io.Writer, net *fabric.Network, filter Filter) (*Writer, error) {
	if err := filter.check(net.NPUs(), len(net.Links)); err != nil {
		return nil, err
	}
	w := pcapgo.NewWriterNanos(out)
	if err := w.WriteFileHeader(HeaderLen, LinkType); err != nil {
		return nil, fmt.Errorf("packet capture: %w", err)
	}
	return &Writer{w: w, net: net, filter: filter, checkAt: holdFrom}, nil
}

// Observe takes a packet sent (observe.PacketSent) that the filter allows;
// other events are ignored. The first write error stops the capture; Flush
// returns it.
func (c *Writer) Observe(e observe.Event) {
	if e.Kind != observe.PacketSent || c.err != nil {
		return
	}
	l := c.net.Links[e.Link]
	if !c.filter.allows(e, l) {
		return
	}
	h := Header{Link: uint32(e.Link), From: uint32(l.Src), To: uint32(l.Dst), Src: uint32(e.Src), Dst: uint32(e.Dst),
		Collective: uint32(e.Coll), Chunk: uint32(e.Chunk), Phase: uint16(e.Phase + 1), Message: uint32(e.Op),
		Packet: uint32(e.Index), Bytes: uint32(e.Bytes), Cycle: uint64(e.Cycle), End: uint64(e.End), SubStep: uint8(e.Sub)}
	c.seq++
	heap.Push(&c.held, record{h: h, seq: c.seq})
	if len(c.held) >= c.checkAt {
		c.writeBefore(uint64(c.net.Horizon()))
		c.checkAt = max(holdFrom, 2*len(c.held))
	}
}

// writeBefore writes the held packets that start before cycle t.
func (c *Writer) writeBefore(t uint64) {
	for len(c.held) > 0 && c.held[0].h.Cycle < t && c.err == nil {
		r := heap.Pop(&c.held).(record)
		r.h.Marshal(c.buf[:])
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(0, Nanoseconds(rtl.Cycle(r.h.Cycle))).UTC(), CaptureLength: HeaderLen, Length: HeaderLen + int(r.h.Bytes)}
		if err := c.w.WritePacket(ci, c.buf[:]); err != nil {
			c.err = fmt.Errorf("packet capture: %w", err)
			return
		}
		c.n++
	}
}

// Flush writes every packet held, at the end of the run, and returns the
// first error writing the capture, if any.
func (c *Writer) Flush() error {
	c.writeBefore(math.MaxUint64)
	return c.err
}

// Packets returns how many packets were written.
func (c *Writer) Packets() int64 { return c.n }
