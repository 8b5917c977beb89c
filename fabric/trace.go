package fabric

import (
	"encoding/binary"
	"hash"
	"hash/fnv"

	"github.com/acemu/acemu/rtl"
)

// HashTracer folds every packet event into a 64-bit FNV-1a hash: the cycle,
// the link, the message's endpoints and tags, and the packet's index and
// size. Two runs with the same hash moved the same packets over the same
// links at the same cycles.
type HashTracer struct {
	h      hash.Hash64
	buf    [8 * 11]byte
	Events int64
}

// NewHashTracer returns a tracer with an empty hash.
func NewHashTracer() *HashTracer { return &HashTracer{h: fnv.New64a()} }

func (t *HashTracer) add(kind int64, now rtl.Cycle, l *Link, p Packet, end rtl.Cycle) {
	m := p.Msg
	vals := [...]int64{kind, int64(now), int64(l.ID), int64(m.Src), int64(m.Dst), int64(m.Chunk),
		int64(m.Phase), int64(m.Op), int64(p.Index), int64(p.Bytes), int64(end)}
	for i, v := range vals {
		binary.LittleEndian.PutUint64(t.buf[8*i:], uint64(v))
	}
	t.h.Write(t.buf[:])
	t.Events++
}

// PacketSent records a departure.
func (t *HashTracer) PacketSent(now rtl.Cycle, l *Link, p Packet, end rtl.Cycle) {
	t.add(1, now, l, p, end)
}

// PacketReceived records an arrival.
func (t *HashTracer) PacketReceived(now rtl.Cycle, l *Link, p Packet) { t.add(2, now, l, p, 0) }

// Sum returns the hash so far.
func (t *HashTracer) Sum() uint64 { return t.h.Sum64() }
