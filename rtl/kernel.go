package rtl

import (
	"container/heap"
	"fmt"
	"math/bits"
)

// Cycle is simulated time: an integer count of NPU clock cycles.
type Cycle int64

// Handler receives the events scheduled for it. Kind and Arg are the values
// given to Kernel.Schedule; their meaning is the handler's own.
type Handler interface {
	Handle(now Cycle, kind int32, arg int64)
}

// HandlerFunc adapts a function to a Handler, for tests and rare events.
type HandlerFunc func(now Cycle, kind int32, arg int64)

// Handle calls f.
func (f HandlerFunc) Handle(now Cycle, kind int32, arg int64) { f(now, kind, arg) }

// event is one scheduled call. seq is the global order of scheduling and
// breaks ties between events due at the same cycle: earlier scheduled, earlier
// run. Events are values; nothing is allocated per event in steady state.
type event struct {
	at   Cycle
	seq  uint64
	h    Handler
	kind int32
	arg  int64
}

const (
	wheelBits = 10
	wheelSize = 1 << wheelBits // cycles covered by the timing wheel
	wheelMask = wheelSize - 1
)

// Kernel is a single-threaded discrete-event scheduler with integer time.
//
// Events due less than wheelSize cycles ahead go into a timing wheel (one
// bucket per cycle, appended in scheduling order); later ones go into a
// binary heap ordered by (cycle, seq). At each cycle the heap's events run
// first, then the bucket's. This is exactly (cycle, seq) order: an event in
// the heap for cycle t was scheduled before t-wheelSize, and so before any
// event the wheel holds for t. Runs are therefore reproducible bit for bit.
//
// Components are woken on demand: a component schedules an event only when
// it has something to do, so idle hardware costs nothing.
type Kernel struct {
	now    Cycle
	seq    uint64
	wheel  [wheelSize][]event
	occ    [wheelSize / 64]uint64 // bit i set: bucket i is not empty
	near   int                    // events in the wheel
	far    farHeap
	ran    uint64
	halted bool
}

// NewKernel returns a kernel at cycle 0 with no events.
func NewKernel() *Kernel { return &Kernel{} }

// Now returns the current cycle.
func (k *Kernel) Now() Cycle { return k.now }

// Events returns how many events have run so far.
func (k *Kernel) Events() uint64 { return k.ran }

// Pending returns how many events are scheduled and not yet run.
func (k *Kernel) Pending() int { return k.near + len(k.far) }

// Schedule arranges for h.Handle(at, kind, arg) to run at cycle at. Scheduling
// in the past is a programming error and panics: a model that does it would
// otherwise silently reorder time.
func (k *Kernel) Schedule(at Cycle, h Handler, kind int32, arg int64) {
	if at < k.now {
		panic(fmt.Sprintf("rtl: event scheduled at cycle %d, before now (%d)", at, k.now))
	}
	k.seq++
	ev := event{at: at, seq: k.seq, h: h, kind: kind, arg: arg}
	if at-k.now < wheelSize {
		i := int(at & wheelMask)
		k.wheel[i] = append(k.wheel[i], ev)
		k.occ[i>>6] |= 1 << (uint(i) & 63)
		k.near++
		return
	}
	heap.Push(&k.far, ev)
}

// After schedules h at now+delay.
func (k *Kernel) After(delay Cycle, h Handler, kind int32, arg int64) {
	k.Schedule(k.now+delay, h, kind, arg)
}

// Halt makes Run return after the events of the current cycle.
func (k *Kernel) Halt() { k.halted = true }

// Run runs events until none is left or Halt is called, and returns the cycle
// of the last event run.
func (k *Kernel) Run() Cycle { return k.RunUntil(Cycle(1<<62 - 1)) }

// RunUntil runs events due at or before limit (or until none is left, or Halt)
// and returns the current cycle. Events after limit stay scheduled.
func (k *Kernel) RunUntil(limit Cycle) Cycle {
	k.halted = false
	for !k.halted {
		t, ok := k.next()
		if !ok || t > limit {
			break
		}
		k.now = t
		for len(k.far) > 0 && k.far[0].at == t {
			ev := heap.Pop(&k.far).(event)
			k.ran++
			ev.h.Handle(t, ev.kind, ev.arg)
		}
		i := int(t & wheelMask)
		// The bucket may grow while it runs (events scheduled for now).
		for j := 0; j < len(k.wheel[i]); j++ {
			ev := k.wheel[i][j]
			k.wheel[i][j].h = nil
			k.ran++
			k.near--
			ev.h.Handle(t, ev.kind, ev.arg)
		}
		k.wheel[i] = k.wheel[i][:0]
		k.occ[i>>6] &^= 1 << (uint(i) & 63)
	}
	return k.now
}

// next returns the cycle of the earliest scheduled event.
func (k *Kernel) next() (Cycle, bool) {
	best, ok := Cycle(0), false
	if len(k.far) > 0 {
		best, ok = k.far[0].at, true
	}
	if k.near > 0 {
		if d, found := k.nextOccupied(); found {
			t := k.now + Cycle(d)
			if !ok || t < best {
				best, ok = t, true
			}
		}
	}
	return best, ok
}

// nextOccupied returns the distance from now to the first non-empty bucket,
// scanning the occupancy bitmap from the current cycle's bucket onwards.
func (k *Kernel) nextOccupied() (int, bool) {
	start := int(k.now & wheelMask)
	w := start >> 6
	word := k.occ[w] &^ (1<<(uint(start)&63) - 1) // bits at or after start
	for n := 0; n <= len(k.occ); n++ {
		if word != 0 {
			i := w<<6 | bits.TrailingZeros64(word)
			return (i - start + wheelSize) & wheelMask, true
		}
		w = (w + 1) % len(k.occ)
		word = k.occ[w]
		if n == len(k.occ)-1 {
			word &= 1<<(uint(start)&63) - 1 // wrapped: only bits before start
		}
	}
	return 0, false
}

// farHeap orders far events by (cycle, seq).
type farHeap []event

func (h farHeap) Len() int { return len(h) }
func (h farHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h farHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *farHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *farHeap) Pop() any {
	old := *h
	ev := old[len(old)-1]
	*h = old[:len(old)-1]
	return ev
}
