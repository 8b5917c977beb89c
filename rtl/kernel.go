package rtl

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
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

// Class orders the events due at the same cycle: lower classes run first,
// and within a class events run in the order they were scheduled.
//
// Classes make the order of a cycle's events independent of how the
// components of a symmetric system happen to interleave. An event one NPU
// schedules for another (a packet arriving, a credit returning, a notice)
// gets a class of its own, named by the port or kind of message, so it
// takes the same place among the receiver's events whichever NPU's events
// ran first; events of the whole system (a collective issued or finished)
// run after every NPU's. Then every NPU of a torus running a translation-
// equivariant program sees exactly what every other sees, which is what
// lets one NPU stand for all (fabric.NewFoldedNetwork).
type Class uint8

// Event classes, in the order they run within a cycle.
const (
	// ClassArrive + port: a packet arrives over the link that left its
	// sender by that port (ports < ClassPorts).
	ClassArrive Class = 0
	// ClassSwitchArrive: a packet arrives over a link that left a switch,
	// by any of its ports (a switch may have more than ClassPorts). A
	// network with switches is never folded, so these need no class per
	// port: they run in the order they were scheduled.
	ClassSwitchArrive Class = ClassArrive + ClassPorts
	// ClassCredit + port: a credit comes back to the sender of a link.
	ClassCredit Class = ClassSwitchArrive + 1
	// ClassSwitchCredit: a credit comes back to a switch, for a link
	// leaving it by any of its ports.
	ClassSwitchCredit Class = ClassCredit + ClassPorts
	// ClassNotice: a notice from another NPU (ACE's receive-ready).
	ClassNotice Class = ClassSwitchCredit + 1
	// ClassTransmit + port: a link's serialiser may start its next packet,
	// on a link whose events take a fixed place in the cycle
	// (fabric.Feeder); other links' are ClassDefault.
	ClassTransmit Class = ClassNotice + 1
	// ClassDefault: a component's own events (Schedule).
	ClassDefault Class = ClassTransmit + ClassPorts
	// ClassSwitch: a switch's arbitration, once the cycle's arrivals,
	// credits and transmit events have happened (fabric.Switch).
	ClassSwitch Class = ClassDefault + 1
	// ClassControl: a component's decision once everything else of the
	// cycle has happened (ACE's scheduler).
	ClassControl Class = ClassSwitch + 1
	// ClassSystem: events of the whole system, after every component's.
	ClassSystem Class = ClassControl + 1
)

// ClassPorts bounds the port numbers ClassArrive, ClassCredit and
// ClassTransmit take.
const ClassPorts = 16

// event is one scheduled call. key is the event's class in its top byte and
// the global order of scheduling below: it breaks ties between events due at
// the same cycle, lower class first, then earlier scheduled, earlier run.
// Events are values; nothing is allocated per event in steady state. An
// event in the wheel is due at its bucket's cycle, so it does not carry
// its cycle (40 bytes, not 48); one in the far heap does (farEvent).
type event struct {
	key  uint64
	h    Handler
	arg  int64
	kind int32
}

// farEvent is an event due at cycle at, beyond the wheel.
type farEvent struct {
	at Cycle
	event
}

const seqBits = 56

// lateFrom is the size of a bucket from which an event out of order waits
// aside until the bucket's turn (Kernel): below it, moving the events
// after its place costs less than merging.
const lateFrom = 64

const (
	wheelBits = 10
	wheelSize = 1 << wheelBits // cycles covered by the timing wheel
	wheelMask = wheelSize - 1
)

// Kernel is a single-threaded discrete-event scheduler with integer time.
//
// Its memory is sized by the events in flight, not by the run: a bucket
// holds a larger array only while it has events, and gives it back to a
// pool of arrays by size (bucketPool) when its cycle has run; it keeps
// the smallest (minBucket events, 320 bytes; 320 KiB for the wheel),
// room enough for most cycles, for its next cycle. (Before, every bucket
// kept the largest array it ever needed: a full run on 64 NPUs held room
// for 408 840 events in its wheel with never more than 1 153 pending.)
//
// Events due less than wheelSize cycles ahead go into a timing wheel: one
// bucket per cycle, kept in (class, seq) order. The usual event, scheduled
// after the bucket's others and of no lower class, is appended; one of a
// lower class goes in its place in a small bucket, and in a large one
// waits aside (late) until the bucket's turn comes, when the
// late events are sorted and merged in (a cycle of a large network holds
// hundreds of events, which inserting each in place would move again and
// again). Later events go into a binary heap ordered by (cycle, class,
// seq), and join their bucket's late events when its turn comes. An event
// scheduled for the current cycle while its bucket runs is inserted among
// those not yet run. This is exactly (cycle, class,
// seq) order, so runs are reproducible bit for bit.
//
// Components are woken on demand: a component schedules an event only when
// it has something to do, so idle hardware costs nothing.
type Kernel struct {
	now    Cycle
	seq    uint64
	runPos int // while a bucket runs: the index of the next event to run
	wheel  [wheelSize][]event
	// late holds, per bucket, the events scheduled out of key order (of a
	// lower class than the bucket's last) and those come from the far
	// heap: merged in when its turn comes.
	late   [wheelSize][]event
	pool   bucketPool
	occ    [wheelSize / 64]uint64 // bit i set: bucket i is not empty
	near   int                    // events in the wheel
	far    farHeap
	ran    uint64
	halted bool
	// The watchdog: progressAt is Events() when the model last reported
	// progress; a run that goes StallEvents events past it stops, stalled.
	progressAt uint64
	stalled    bool
	stallAfter uint64 // 0: StallEvents
	beyond     bool   // an event was due after MaxCycle: the run stopped
	cur        uint64 // the key of the event running (or run last)
	// Watch's onlooker: called when time reaches watchAt.
	watch      func(now Cycle)
	watchEvery Cycle
	watchAt    Cycle
}

// NewKernel returns a kernel at cycle 0 with no events.
func NewKernel() *Kernel { return &Kernel{watchAt: never} }

// never is watchAt with no watcher: time never reaches it, so the loop
// tests one comparison per cycle.
const never = Cycle(math.MaxInt64)

// Now returns the current cycle.
func (k *Kernel) Now() Cycle { return k.now }

// MaxCycle bounds simulated time: a run that would go beyond it is
// refused before it starts. Serializers and memory servers keep time in
// units of 1/Num cycle and multiply it by a rate's Den (Rate), so a cycle
// times Num times Den must stay inside int64; NewRate refuses rates whose
// Num × Den would let it overflow by MaxCycle. 2 × 10^10 cycles is 16 s at
// 1245 MHz: a thousand training iterations of the built-in ResNet-50
// (9.7 M cycles each) fit, and rates as fine as 1/10^8 B/cycle stay exact.
const MaxCycle = 20_000_000_000

// MaxCycleText is MaxCycle as simulated time, for messages.
const MaxCycleText = "16 s at 1245 MHz"

// StallEvents is how many events may run with no progress reported
// (Progress) before the kernel stops the run as stalled: a run whose
// events go on but whose model does nothing (a retry that never succeeds)
// ends with its report of who waits on what instead of running forever.
// Every packet a link starts is progress, and a healthy run reports it
// every few events; 2^26 events is seconds of wall time.
const StallEvents = 1 << 26

// SetStallEvents changes the watchdog's limit for this kernel (0: back to
// StallEvents): for tests of stalls.
func (k *Kernel) SetStallEvents(n uint64) { k.stallAfter = n }

// Progress records that the model moved forward (a packet started on a
// link, work finished): the watchdog's evidence.
func (k *Kernel) Progress() { k.progressAt = k.ran }

// Stalled reports whether the last run stopped because StallEvents events
// ran with no progress.
func (k *Kernel) Stalled() bool { return k.stalled }

// Overflow is what the exact time arithmetic panics with when a run has
// gone so far that a product no longer fits 64 bits: long runs on rates
// with large fractions. RecoverOverflow turns it into an error.
type Overflow string

// RecoverOverflow, deferred by a function that runs a simulation, turns an
// Overflow panic into *err; any other panic goes on.
func RecoverOverflow(err *error) {
	if r := recover(); r != nil {
		o, ok := r.(Overflow)
		if !ok {
			panic(r)
		}
		*err = fmt.Errorf("the run went so far in simulated time that its exact time arithmetic overflows (%s); make it shorter (fewer iterations, a smaller collective, round bandwidths)", string(o))
	}
}

// StallError is nil, or, after a run that stalled or went past MaxCycle,
// an error saying so (the caller adds who waits on what).
func (k *Kernel) StallError() error {
	if k.beyond {
		return fmt.Errorf("the run went past cycle %d (%s), the most acemu simulates exactly; make it smaller (a smaller collective, fewer iterations)", int64(MaxCycle), MaxCycleText)
	}
	if !k.stalled {
		return nil
	}
	return fmt.Errorf("the run stopped making progress: %d events ran up to cycle %d with no packet moving and no work finishing (a retry that can never succeed)", cmp.Or(k.stallAfter, StallEvents), k.now)
}

// Events returns how many events have run so far.
func (k *Kernel) Events() uint64 { return k.ran }

// Pending returns how many events are scheduled and not yet run.
func (k *Kernel) Pending() int { return k.near + len(k.far) }

// Schedule arranges for h.Handle(at, kind, arg) to run at cycle at. Scheduling
// in the past is a programming error and panics: a model that does it would
// otherwise silently reorder time.
func (k *Kernel) Schedule(at Cycle, h Handler, kind int32, arg int64) {
	k.ScheduleClass(at, ClassDefault, h, kind, arg)
}

// ScheduleClass is Schedule for an event of class c.
func (k *Kernel) ScheduleClass(at Cycle, c Class, h Handler, kind int32, arg int64) {
	if at < k.now {
		if k.now-at > 1<<40 { // a time that wrapped round int64, not a model bug
			panic(Overflow(fmt.Sprintf("an event's time wrapped round (due at cycle %d, now %d)", at, k.now)))
		}
		panic(fmt.Sprintf("rtl: event scheduled at cycle %d, before now (%d)", at, k.now))
	}
	if at > MaxCycle { // beyond what time arithmetic holds: stop the run
		k.beyond, k.halted = true, true
		return
	}
	k.seq++
	ev := event{key: uint64(c)<<seqBits | k.seq, h: h, kind: kind, arg: arg}
	if at-k.now < wheelSize {
		i := int(at & wheelMask)
		b := k.wheel[i]
		switch n := len(b); {
		case n == 0 || b[n-1].key < ev.key:
			if n < cap(b) { // the usual case, without a call
				b = b[:n+1]
				b[n] = ev
				k.wheel[i] = b
			} else {
				k.wheel[i] = k.pool.append(b, ev)
			}
		case at == k.now:
			k.wheel[i] = k.insertEvent(b, ev, k.runPos) // among the events not yet run
		case n < lateFrom:
			k.wheel[i] = k.insertEvent(b, ev, 0)
		default:
			k.late[i] = k.pool.append(k.late[i], ev)
		}
		k.occ[i>>6] |= 1 << (uint(i) & 63)
		k.near++
		return
	}
	k.far.push(farEvent{at, ev})
}

// insertEvent puts ev into the bucket b, kept in key order from index lo on.
func (k *Kernel) insertEvent(b []event, ev event, lo int) []event {
	b = k.pool.append(b, ev)
	j := len(b) - 1
	for j > lo && b[j-1].key > ev.key {
		b[j] = b[j-1]
		j--
	}
	b[j] = ev
	return b
}

// mergeLate merges bucket i's late events into it, in key order.
func (k *Kernel) mergeLate(i int) {
	late := k.late[i]
	slices.SortFunc(late, func(a, b event) int { return cmp.Compare(a.key, b.key) })
	b := k.wheel[i]
	out := k.pool.get(len(b) + len(late))
	x, y := 0, 0
	for x < len(b) && y < len(late) {
		if b[x].key < late[y].key {
			out = append(out, b[x])
			x++
		} else {
			out = append(out, late[y])
			y++
		}
	}
	out = append(append(out, b[x:]...), late[y:]...)
	clear(late)
	clear(b)
	k.pool.put(late)
	k.pool.put(b)
	k.late[i], k.wheel[i] = nil, out
}

// After schedules h at now+delay.
func (k *Kernel) After(delay Cycle, h Handler, kind int32, arg int64) {
	k.Schedule(k.now+delay, h, kind, arg)
}

// Precedes reports whether an event due at cycle at of class c runs
// before the event running now (or run last): it is due earlier, or in the
// same cycle with a lower class.
func (k *Kernel) Precedes(at Cycle, c Class) bool {
	return at < k.now || at == k.now && c < Class(k.cur>>seqBits)
}

// Scheduled returns how many events have been scheduled so far. Two events
// of the same cycle and class scheduled with nothing scheduled between
// them (Scheduled went up by one) are next to each other in the kernel's
// order: no event can later take a place between them. Only an event
// the first one's run schedules for its own cycle, of a lower class, runs
// between them (Interposed). A component may therefore let the second
// ride on the first: do its work in the first's run, after its own, with
// no event of its own (npu's port retries do).
func (k *Kernel) Scheduled() uint64 { return k.seq }

// Interposed reports, during an event's run, whether an event it has
// scheduled for the current cycle will run before every event that was
// due after it: one of a lower class, which the kernel runs next. Work
// riding on the running event (Scheduled) that would have run after such
// an event goes on in Resume's event.
func (k *Kernel) Interposed() bool {
	b := k.wheel[k.now&wheelMask]
	return k.runPos < len(b) && b[k.runPos].key < k.cur
}

// Resume schedules h.Handle(now, kind, arg) in the running event's own
// place: after the events of the current cycle it has interposed
// (Interposed) and before every event that was due after it, as a
// second event scheduled right after it, which rode on it, would have
// run. It may only be called during an event's run.
func (k *Kernel) Resume(h Handler, kind int32, arg int64) {
	i := int(k.now & wheelMask)
	k.wheel[i] = k.insertEvent(k.wheel[i], event{key: k.cur, h: h, kind: kind, arg: arg}, k.runPos)
	k.near++
}

// Watch has f called with the current cycle, outside any event, the first
// time simulated time reaches or passes every cycles after Now, and then
// each time it has gone every cycles past the last call: f looks on while
// the kernel runs (a progress report). It is called just before the events
// of the cycle it is given run. f must not schedule events or change the
// model; nothing in a run reads it, so a run's events, their order and
// its results are the same with it as without. Time only reaches cycles
// that have events: a quiet stretch is skipped in one call. A nil f, or
// every ≤ 0, stops it.
func (k *Kernel) Watch(every Cycle, f func(now Cycle)) {
	if f == nil || every <= 0 {
		k.watch, k.watchEvery, k.watchAt = nil, 0, never
		return
	}
	k.watch, k.watchEvery, k.watchAt = f, every, k.now+every
}

// Halt makes Run return after the events of the current cycle.
func (k *Kernel) Halt() { k.halted = true }

// Run runs events until none is left or Halt is called, and returns the cycle
// of the last event run.
func (k *Kernel) Run() Cycle { return k.RunUntil(Cycle(1<<62 - 1)) }

// RunUntil runs events due at or before limit (or until none is left, or Halt)
// and returns the current cycle. Events after limit stay scheduled.
func (k *Kernel) RunUntil(limit Cycle) Cycle {
	k.halted, k.stalled = false, false
	k.progressAt = k.ran
	stallAt := cmp.Or(k.stallAfter, StallEvents)
	for !k.halted {
		if k.ran-k.progressAt > stallAt {
			k.stalled = true
			break
		}
		t, ok := k.next()
		if !ok || t > limit {
			break
		}
		k.now = t
		if t >= k.watchAt { // never without a watcher
			k.watchAt = t + k.watchEvery
			k.watch(t)
		}
		i := int(t & wheelMask)
		for len(k.far) > 0 && k.far[0].at == t {
			k.late[i] = k.pool.append(k.late[i], k.far.pop().event)
			k.near++
		}
		if len(k.late[i]) > 0 {
			k.mergeLate(i)
		}
		// The bucket may grow while it runs (events scheduled for now).
		for j := 0; j < len(k.wheel[i]); j++ {
			if k.ran-k.progressAt > stallAt { // events for now without end
				k.stalled = true
				return k.now
			}
			ev := &k.wheel[i][j]
			h, kind, arg := ev.h, ev.kind, ev.arg
			ev.h = nil
			k.ran++
			k.near--
			k.runPos = j + 1
			k.cur = ev.key
			h.Handle(t, kind, arg)
		}
		k.runPos = 0
		if b := k.wheel[i]; cap(b) <= minBucket {
			k.wheel[i] = b[:0] // kept for the bucket's next cycle: no trip through the pool
		} else {
			k.pool.put(b)
			k.wheel[i] = nil
		}
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

// bucketPool keeps the arrays of buckets that have no events, by size: a
// power of two from minBucket events, class c holding arrays of
// minBucket << c.
type bucketPool struct {
	free [40][][]event
}

// minBucket is the smallest array a bucket holds.
const minBucket = 8

// class is the class of arrays of capacity n, a power of two from
// minBucket.
func bucketClass(n int) int { return bits.Len(uint(n/minBucket)) - 1 }

// get returns an empty array with room for n events: a pooled one, or a
// new one.
func (p *bucketPool) get(n int) []event {
	size := max(minBucket, 1<<bits.Len(uint(n-1)))
	c := bucketClass(size)
	if f := p.free[c]; len(f) > 0 {
		b := f[len(f)-1]
		f[len(f)-1] = nil
		p.free[c] = f[:len(f)-1]
		return b
	}
	return make([]event, 0, size)
}

// put gives b's array back to the pool (nothing for none). Its events
// have run or been copied, their handlers cleared.
func (p *bucketPool) put(b []event) {
	if cap(b) == 0 {
		return
	}
	c := bucketClass(cap(b))
	p.free[c] = append(p.free[c], b[:0])
}

// append is append(b, ev), growing into an array of twice the room from
// the pool and giving b's back.
func (p *bucketPool) append(b []event, ev event) []event {
	if len(b) == cap(b) {
		nb := p.get(len(b) + 1)
		nb = append(nb, b...)
		clear(b)
		p.put(b)
		b = nb
	}
	return append(b, ev)
}

// farHeap orders far events by (cycle, class, seq): a binary heap of
// values, pushed and popped without container/heap's interface, which
// put every event in an allocated box twice. The order is total (every
// key is unique), so any heap pops the same sequence.
type farHeap []farEvent

// before reports whether far event a runs before b.
func (a *farEvent) before(b *farEvent) bool {
	return a.at < b.at || a.at == b.at && a.key < b.key
}

// push adds e.
func (h *farHeap) push(e farEvent) {
	q := append(*h, e)
	i := len(q) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q[i].before(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
	*h = q
}

// pop removes and returns the first event; h must not be empty.
func (h *farHeap) pop() farEvent {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q[n] = farEvent{} // no handler kept alive
	q = q[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && q[c+1].before(&q[c]) {
			c++
		}
		if !q[c].before(&q[i]) {
			break
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
	*h = q
	return top
}
