// Package observe is acemu's one observer mechanism: components emit
// Events to an Observer when one listens, and cost one comparison when
// none does. Packet traces, timelines, golden traces and determinism
// hashes are observers.
package observe

import (
	"encoding/binary"
	"hash"
	"hash/fnv"

	"github.com/acemu/acemu/rtl"
)

// Kind is what happened.
type Kind uint8

// The events.
const (
	// PacketSent: a packet starts on a link (Cycle); its last byte leaves
	// by End. NPU is the link's source, Link its index in the network.
	PacketSent Kind = iota + 1
	// PacketReceived: a packet is wholly in a link's receive buffer
	// (Cycle). A packet its receiver only takes (fabric.Absorber) is
	// reported when it is sent, with the cycle it arrives.
	PacketReceived
	// OpStart and OpDone: a program operation (a send issued, or any op
	// completed) on an endpoint that runs programs op by op (the ideal
	// and baseline endpoints).
	OpStart
	OpDone
	// SubStep: a unit of ACE's work from Cycle to End (What: dma-in,
	// dma-out, send, recv, reduce, ...).
	SubStep
	// CollectiveIssued and CollectiveDone: a collective issued to the AFI,
	// and complete on every NPU.
	CollectiveIssued
	CollectiveDone
	// KernelStart and KernelEnd: a compute kernel on the NPU (KernelEnd:
	// from Cycle to End). The training loop's name the kernel by its
	// layer and pass in What ("conv1 forward"), with its iteration in Step
	// and its layer in Op (both from 0).
	KernelStart
	KernelEnd
	// ChunkDone: a chunk is finished on an NPU; in a run that carries
	// values, Values are its final values (one per payload byte).
	ChunkDone
	// Stall: the training loop waited for communication from Cycle to End
	// (exposed communication); What says where and for which collectives.
	Stall
)

// Event is one observation. Fields that do not apply to a kind are zero
// (or -1 where zero is meaningful and documented).
type Event struct {
	Kind  Kind
	Cycle rtl.Cycle // when it happened or started
	End   rtl.Cycle // when it ends, where known
	NPU   int
	Link  int // packets: the link's index in the network
	// Src and Dst are a packet's message endpoints; Coll, Chunk, Phase, Op
	// its tags, or the op's or sub-step's (Op -1 for a DMA sub-step).
	Src, Dst               int
	Coll, Chunk, Phase, Op int
	Index                  int   // a packet's position in its message
	Sub                    int   // a packet's message's sending sub-step (fabric.Message.Sub)
	FSM                    int   // an ACE sub-step's FSM (-1: a DMA sub-step, which no FSM drives)
	Step                   int   // an op's step
	OpKind                 int   // an op's collectives.Kind
	Bytes                  int64 // a packet's or sub-step's bytes, a collective's size
	What                   string
	// Values are a finished chunk's values (ChunkDone, when the run
	// carries values); an observer reads them during the call only.
	Values []int64
}

// Observer receives events. Observe must not keep e's slices past the
// call.
type Observer interface {
	Observe(e Event)
}

// Func is a function as an Observer.
type Func func(Event)

// Observe calls f.
func (f Func) Observe(e Event) { f(e) }

// Hash folds every event of the kinds it is given (all, if none) into a
// 64-bit FNV-1a hash of its fields in order, all but a chunk's Values.
// Two runs with the same hash saw, almost surely, the same events in the
// same order.
type Hash struct {
	kinds  map[Kind]bool
	h      hash.Hash64
	buf    [8 * 18]byte
	Events int64
}

// NewHash returns a hash of the events of kinds (all when none given).
func NewHash(kinds ...Kind) *Hash {
	t := &Hash{h: fnv.New64a()}
	if len(kinds) > 0 {
		t.kinds = map[Kind]bool{}
		for _, k := range kinds {
			t.kinds[k] = true
		}
	}
	return t
}

// Observe folds e into the hash.
func (t *Hash) Observe(e Event) {
	if t.kinds != nil && !t.kinds[e.Kind] {
		return
	}
	vals := [...]int64{int64(e.Kind), int64(e.Cycle), int64(e.End), int64(e.NPU), int64(e.Link), int64(e.Src), int64(e.Dst),
		int64(e.Coll), int64(e.Chunk), int64(e.Phase), int64(e.Op), int64(e.Index), int64(e.Sub), int64(e.FSM), int64(e.Step), int64(e.OpKind),
		e.Bytes, int64(len(e.What))}
	for i, v := range vals {
		binary.LittleEndian.PutUint64(t.buf[8*i:], uint64(v))
	}
	t.h.Write(t.buf[:])
	t.h.Write([]byte(e.What))
	t.Events++
}

// Sum returns the hash so far.
func (t *Hash) Sum() uint64 { return t.h.Sum64() }

// Tee sends every event to each of its observers, in order.
type Tee []Observer

// Observe passes e on.
func (t Tee) Observe(e Event) {
	for _, o := range t {
		o.Observe(e)
	}
}

// Observers are a run's observers by what they watch: Packets the links'
// packets (fabric.Network.SetObserver), Work the endpoint's, the AFI's and
// the training loop's events. Each may be nil. Packets are most of a
// run's events, so an observer that needs none is not given them.
type Observers struct {
	Packets, Work Observer
}

// JoinAll joins each kind of the observers given (Join).
func JoinAll(obs ...Observers) Observers {
	var p, w []Observer
	for _, o := range obs {
		p, w = append(p, o.Packets), append(w, o.Work)
	}
	return Observers{Packets: Join(p...), Work: Join(w...)}
}

// Join returns one observer for those given that are not nil: nil for
// none, the observer itself for one, their Tee for several.
func Join(obs ...Observer) Observer {
	var t Tee
	for _, o := range obs {
		if o != nil {
			t = append(t, o)
		}
	}
	switch len(t) {
	case 0:
		return nil
	case 1:
		return t[0]
	}
	return t
}
