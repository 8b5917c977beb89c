package npu

import "github.com/acemu/acemu/fabric"

// msgQueue orders a port's waiting messages by their collective's priority
// (Policy), then oldest chunk first, then in the order they became ready:
// the oldest chunk's messages never wait behind a younger chunk's, which
// keeps chunks flowing through the phases. Its entries carry their keys,
// so ordering reads no message; the keys are unique (seq), so the order
// popped is the same whatever the structure's shape.
//
// Most messages that become ready belong to the oldest chunks and go
// first, ahead of a backlog of younger chunks'. They go into front, kept
// sorted with the first at its end, and the backlog into a 4-ary heap
// (half the levels of a binary one, a node's children side by side in
// memory): every entry of front comes before every entry of the heap, so
// a message that goes first is pushed and popped without touching the
// heap's cold levels.
type msgQueue struct {
	front []queued // sorted, last first; all before the heap's
	heap  []queued
}

type queued struct {
	prio  int64
	seq   uint64
	msg   *fabric.Message
	chunk int32
	op    int32 // the Send op whose message msg is
}

// out is the queued message as its port sends it, from its first packet.
func (x queued) out() outMsg { return outMsg{msg: x.msg, chunk: x.chunk, op: x.op, reads: 1} }

func (a *queued) before(b *queued) bool {
	if a.prio != b.prio {
		return a.prio < b.prio
	}
	if a.chunk != b.chunk {
		return a.chunk < b.chunk
	}
	return a.seq < b.seq
}

// heapArity is the number of children of a node of a port's queue.
const heapArity = 4

// frontMax bounds a port queue's front (msgQueue).
const frontMax = 64

// Len returns the messages queued.
func (q *msgQueue) Len() int { return len(q.front) + len(q.heap) }

// Push queues x: its message, of a collective of priority x.prio
// (chunkState.prio), x.seq-th to become ready.
func (q *msgQueue) Push(x queued) {
	n := len(q.front)
	switch {
	case n > 0 && x.before(&q.front[0]) || n == 0 && (len(q.heap) == 0 || x.before(&q.heap[0])):
		// Before the front's last (or, with no front, before the whole
		// heap): into front, in its place from the end. A full front
		// gives its last (the largest, before every entry of the heap)
		// to the heap first, so that an insertion moves at most
		// frontMax entries.
		if n == frontMax {
			q.pushHeap(q.front[0])
			copy(q.front, q.front[1:])
			q.front = q.front[:n-1]
			n--
		}
		q.front = append(q.front, x)
		i := n
		for ; i > 0 && q.front[i-1].before(&x); i-- {
			q.front[i] = q.front[i-1]
		}
		q.front[i] = x
	default:
		q.pushHeap(x)
	}
}

func (q *msgQueue) pushHeap(x queued) {
	q.heap = append(q.heap, x)
	h := q.heap
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / heapArity
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// Pop takes the first message, of a queue that is not empty.
func (q *msgQueue) Pop() queued {
	if n := len(q.front); n > 0 {
		x := q.front[n-1]
		q.front[n-1] = queued{}
		q.front = q.front[:n-1]
		return x
	}
	h := q.heap
	x := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = queued{}
	h = h[:n]
	for i := 0; ; {
		first := heapArity*i + 1
		if first >= n {
			break
		}
		c := first
		for r := first + 1; r < min(first+heapArity, n); r++ {
			if h[r].before(&h[c]) {
				c = r
			}
		}
		if !h[c].before(&h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	q.heap = h
	return x
}
