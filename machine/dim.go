package machine

import "fmt"

// Dim is one dimension of a machine: a partition of its NPUs into groups
// of Size members, each group's members in order. When Ring is set, a
// group is a ring of links: a member's Plus port reaches the next member
// and its Minus port the previous one; otherwise messages between members
// are routed. A dimension is strided (the torus's, a factorisation's:
// members differ by multiples of a place value, every member with the
// same ports) or explicit (groups and ports listed, e.g. a DGX-1 ring).
type Dim struct {
	Name, Short string
	Size        int
	Ring        bool
	n           int
	// strided
	stride      int
	plus, minus int8
	// explicit
	groups [][]int
	group  []int32 // per NPU: its group
	pos    []int32 // per NPU: its place in it
	ports  [][2]int8
}

// Strided is the dimension of n NPUs whose groups are the NPUs with equal
// ids but for the mixed-radix digit of place value stride and radix size;
// plus and minus are every member's ring ports when ring is set.
func Strided(name, short string, n, size, stride int, ring bool, plus, minus int8) Dim {
	return Dim{Name: name, Short: short, Size: size, Ring: ring, n: n, stride: stride, plus: plus, minus: minus}
}

// Explicit is the dimension of n NPUs whose groups are listed, each in
// member order; ports, when not nil, gives every NPU's Plus and Minus
// ports (a ring of links). Every NPU must be in exactly one group and the
// groups must be equally large.
func Explicit(name, short string, n int, groups [][]int, ports [][2]int8) (Dim, error) {
	d := Dim{Name: name, Short: short, n: n, Ring: ports != nil, groups: groups, ports: ports,
		group: make([]int32, n), pos: make([]int32, n)}
	if len(groups) == 0 || len(groups[0]) == 0 {
		return Dim{}, fmt.Errorf("dimension %s: no groups; list its groups of NPUs", name)
	}
	d.Size = len(groups[0])
	for i := range d.group {
		d.group[i] = -1
	}
	for g, members := range groups {
		if len(members) != d.Size {
			return Dim{}, fmt.Errorf("dimension %s: group %d has %d NPUs, group 0 has %d; its groups must be equally large", name, g, len(members), d.Size)
		}
		for i, m := range members {
			switch {
			case m < 0 || m >= n:
				return Dim{}, fmt.Errorf("dimension %s: group %d names NPU %d; the NPUs are 0 to %d", name, g, m, n-1)
			case d.group[m] >= 0:
				return Dim{}, fmt.Errorf("dimension %s: NPU %d is in two groups (%d and %d); each NPU belongs to one", name, m, d.group[m], g)
			}
			d.group[m], d.pos[m] = int32(g), int32(i)
		}
	}
	for m, g := range d.group {
		if g < 0 {
			return Dim{}, fmt.Errorf("dimension %s: NPU %d is in no group; each NPU belongs to one", name, m)
		}
	}
	if ports != nil && len(ports) != n {
		return Dim{}, fmt.Errorf("dimension %s: ports for %d NPUs; the machine has %d", name, len(ports), n)
	}
	return d, nil
}

// N is the number of NPUs the dimension partitions.
func (d *Dim) N() int { return d.n }

// Stride is the place value of a strided dimension's digit; ok is false
// for an explicit one.
func (d *Dim) Stride() (stride int, ok bool) { return d.stride, d.groups == nil }

// Pos is npu's place in its group.
func (d *Dim) Pos(npu int) int {
	if d.groups == nil {
		return (npu / d.stride) % d.Size
	}
	return int(d.pos[npu])
}

// Member is the NPU at place i of npu's group.
func (d *Dim) Member(npu, i int) int {
	if d.groups == nil {
		return npu + (i-(npu/d.stride)%d.Size)*d.stride
	}
	return d.groups[d.group[npu]][i]
}

// Group returns npu's group (NPU ids in member order) and its place in it.
func (d *Dim) Group(npu int) ([]int, int) {
	out := make([]int, d.Size)
	if d.groups != nil {
		copy(out, d.groups[d.group[npu]])
		return out, int(d.pos[npu])
	}
	pos := d.Pos(npu)
	base := npu - pos*d.stride
	for i := range out {
		out[i] = base + i*d.stride
	}
	return out, pos
}

// Ports are npu's ring ports toward the next and the previous member
// (meaningful when Ring is set).
func (d *Dim) Ports(npu int) (plus, minus int8) {
	if d.ports == nil {
		return d.plus, d.minus
	}
	return d.ports[npu][0], d.ports[npu][1]
}

// SameGroups reports whether a and b cut the NPUs into the same groups in
// the same member order (a factorisation's tier that is a torus
// dimension).
func SameGroups(a, b *Dim) bool {
	if a.n != b.n || a.Size != b.Size {
		return false
	}
	if sa, ok := a.Stride(); ok {
		if sb, ok := b.Stride(); ok {
			return sa == sb
		}
	}
	for npu := 0; npu < a.n; npu++ {
		if a.Pos(npu) != b.Pos(npu) || a.Member(npu, 0) != b.Member(npu, 0) {
			return false
		}
	}
	return true
}
