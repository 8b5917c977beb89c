package npu

import "github.com/acemu/acemu/fabric"

// pool keeps the ideal and baseline endpoints' messages for reuse, so
// that a run of millions of messages does not allocate one per message
// (docs/performance.md, "Messages reused"). It is a free list, the last
// given back taken first: its memory was touched last.
//
// A message is given back by the ideal endpoint when its last packet
// reaches its destination (idealPath.arrived), and by the baseline's when
// the RX DMA has written its last packet there (basePath.handle's
// evRxDone: the RX DMA takes each link's packets in order, and its writes
// end in the order they start). Nothing holds it then: the
// port that sent it let it go when its last packet went into the link
// (port.cur); its packets follow one path (the sender's port, then each
// hop's NextPort, or a switch's route for the destination), and every
// queue on it, a link's transmit buffer, wire and receive buffer, an
// NPU's packets passing through and a switch's inputs, is first in, first
// out, so its other packets were taken before the last; the receiver
// keeps only the message's key (msgKey) and its values' slice; observers
// are given copies of its fields (observe.Event). A message given back is
// poisoned (no destination, no packets), so that a use of it before it is
// reused fails loudly rather than reading another message's fields.
type pool struct {
	msgs []*fabric.Message
	// fresh: nothing is kept, every message is new (tests compare the
	// two); reused counts the messages taken from the list.
	fresh  bool
	reused int64
}

// message returns a message of n bytes from src to dst
// (fabric.MakeMessage).
func (p *pool) message(src, dst int, n int64) *fabric.Message {
	k := len(p.msgs)
	if k == 0 {
		return fabric.NewMessage(src, dst, n)
	}
	m := p.msgs[k-1]
	p.msgs = p.msgs[:k-1]
	p.reused++
	*m = fabric.MakeMessage(src, dst, n)
	return m
}

// putMessage gives back a message whose last packet has reached its
// destination, poisoned until it is reused.
func (p *pool) putMessage(m *fabric.Message) {
	*m = fabric.Message{Src: -1, Dst: -1}
	if p.fresh {
		return
	}
	p.msgs = append(p.msgs, m)
}
