package torus

import "github.com/acemu/acemu/fabric"

// Table is a Shape with every NPU's coordinates worked out once, so that
// the per-packet questions (the next port toward a destination, the
// translations of a folded network) take no division: the hot path of a
// run asks them for every packet at every hop. It answers exactly as the
// Shape does (TestTableAnswersAsTheShape). Its size is three small
// integers per NPU.
type Table struct {
	Shape
	c [NumDims][]int32 // c[d][id]: id's coordinate along d
}

// Table returns s's table.
func (s Shape) Table() *Table {
	t := &Table{Shape: s}
	n := s.N()
	for d := range t.c {
		t.c[d] = make([]int32, n)
	}
	for id := 0; id < n; id++ {
		c := s.Coord(id)
		for d := range Dim(NumDims) {
			t.c[d][id] = int32(c[d])
		}
	}
	return t
}

// id is the NPU at coordinates (l, v, h), all in range.
func (t *Table) id(l, v, h int32) int { return int(l) + t.L*(int(v)+t.V*int(h)) }

// Displace is Shape.Displace.
func (t *Table) Displace(id, d int) int {
	l, v, h := t.c[Local][id]+t.c[Local][d], t.c[Vertical][id]+t.c[Vertical][d], t.c[Horizontal][id]+t.c[Horizontal][d]
	if l >= int32(t.L) {
		l -= int32(t.L)
	}
	if v >= int32(t.V) {
		v -= int32(t.V)
	}
	if h >= int32(t.H) {
		h -= int32(t.H)
	}
	return t.id(l, v, h)
}

// Displacement is Shape.Displacement.
func (t *Table) Displacement(a, b int) int {
	l, v, h := t.c[Local][b]-t.c[Local][a], t.c[Vertical][b]-t.c[Vertical][a], t.c[Horizontal][b]-t.c[Horizontal][a]
	if l < 0 {
		l += int32(t.L)
	}
	if v < 0 {
		v += int32(t.V)
	}
	if h < 0 {
		h += int32(t.H)
	}
	return t.id(l, v, h)
}

// NextPort is Shape.NextHop's port index: the first dimension where cur
// and dst differ, the shortest way round, Plus on a tie.
func (t *Table) NextPort(cur, dst int) (int, bool) {
	for d := range Dim(NumDims) {
		a, b := t.c[d][cur], t.c[d][dst]
		if a == b {
			continue
		}
		n := int32(t.Size(d))
		plus := b - a
		if plus < 0 {
			plus += n
		}
		dir := Plus
		if n-plus < plus {
			dir = Minus
		}
		return Port{Dim: d, Dir: dir}.Index(), true
	}
	return 0, false
}

// Arrived is Shape.Arrived.
func (t *Table) Arrived(net *fabric.Network, l *fabric.Link, p fabric.Packet) fabric.Packet {
	if net.Folded() {
		p.Shift = int32(t.Displace(int(p.Shift), l.Dst))
	}
	return p
}

// PacketDst is Shape.PacketDst.
func (t *Table) PacketDst(p fabric.Packet) int {
	if p.Shift == 0 {
		return int(p.Msg.Dst)
	}
	return t.Displacement(int(p.Shift), int(p.Msg.Dst))
}
