package machine

import (
	"testing"

	"github.com/acemu/acemu/fabric"
	"github.com/stretchr/testify/require"
)

// A strided dimension is a mixed-radix digit: on 12 NPUs, size 3 and
// place value 2, NPU 7's digit is (7/2) mod 3 = 0, so its group is 7, 9,
// 11 (7 + 2i) and it is first; NPU 9's digit is (9/2) mod 3 = 1.
func TestStridedDimIsADigit(t *testing.T) {
	d := Strided("v", "v", 12, 3, 2, true, 2, 3)
	members, pos := d.Group(7)
	require.Equal(t, []int{7, 9, 11}, members)
	require.Equal(t, 0, pos)
	require.Equal(t, 1, d.Pos(9))
	require.Equal(t, 11, d.Member(9, 2))
	plus, minus := d.Ports(9)
	require.Equal(t, [2]int8{2, 3}, [2]int8{plus, minus}, "every member's ports are the dimension's")
	st, ok := d.Stride()
	require.True(t, ok)
	require.Equal(t, 2, st)
}

// An explicit dimension lists its groups in member order, with each NPU's
// own ports: a ring 0 → 2 → 3 → 1 of 4 NPUs.
func TestExplicitDimListsItsGroups(t *testing.T) {
	ports := [][2]int8{{0, 1}, {2, 3}, {4, 5}, {6, 7}}
	d, err := Explicit("ring", "r", 4, [][]int{{0, 2, 3, 1}}, ports)
	require.NoError(t, err)
	require.True(t, d.Ring)
	members, pos := d.Group(3)
	require.Equal(t, []int{0, 2, 3, 1}, members)
	require.Equal(t, 2, pos)
	require.Equal(t, 1, d.Member(3, 3))
	plus, minus := d.Ports(3)
	require.Equal(t, [2]int8{6, 7}, [2]int8{plus, minus})
	_, ok := d.Stride()
	require.False(t, ok)
	members[0] = 99 // Group returns a copy
	again, _ := d.Group(3)
	require.Equal(t, 0, again[0])
}

func TestExplicitDimRefusesBadGroups(t *testing.T) {
	for _, tc := range []struct {
		name   string
		groups [][]int
		ports  [][2]int8
		want   string
	}{
		{"none", nil, nil, "no groups"},
		{"unequal", [][]int{{0, 1, 2}, {3}}, nil, "group 1 has 1 NPUs, group 0 has 3"},
		{"out of range", [][]int{{0, 1}, {2, 4}}, nil, "names NPU 4; the NPUs are 0 to 3"},
		{"twice", [][]int{{0, 1}, {1, 2}}, nil, "NPU 1 is in two groups (0 and 1)"},
		{"missing", [][]int{{0, 1}}, nil, "NPU 2 is in no group"},
		{"ports", [][]int{{0, 1, 2, 3}}, [][2]int8{{0, 1}}, "ports for 1 NPUs; the machine has 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Explicit("d", "d", 4, tc.groups, tc.ports)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// Two dimensions are the same groups when they cut the NPUs alike, in the
// same member order, whether strided or listed.
func TestSameGroups(t *testing.T) {
	a := Strided("a", "a", 4, 2, 1, false, 0, 0) // {0,1}, {2,3}
	b, err := Explicit("b", "b", 4, [][]int{{2, 3}, {0, 1}}, nil)
	require.NoError(t, err)
	c, err := Explicit("c", "c", 4, [][]int{{1, 0}, {2, 3}}, nil)
	require.NoError(t, err)
	require.True(t, SameGroups(&a, &b))
	require.False(t, SameGroups(&a, &c), "same sets, other order")
	v := Strided("v", "v", 4, 2, 2, false, 0, 0)
	require.False(t, SameGroups(&a, &v))
}

// line is a routing stub of n NPUs.
type line struct{ n int }

func (l line) N() int                            { return l.n }
func (l line) String() string                    { return "line" }
func (l line) NextPort(cur, dst int) (int, bool) { return 0, cur != dst }
func (l line) Arrived(_ *fabric.Network, _ *fabric.Link, p fabric.Packet) fabric.Packet {
	return p
}
func (l line) PacketDst(p fabric.Packet) int { return int(p.Msg.Dst) }

// A machine's dimensions must cover its NPUs; two machines are the same
// by name and size.
func TestNewChecksTheDimensions(t *testing.T) {
	_, err := New("m", line{4}, nil)
	require.ErrorContains(t, err, "no dimensions")
	_, err = New("m", line{4}, []Dim{Strided("a", "a", 6, 6, 1, false, 0, 0)})
	require.ErrorContains(t, err, "dimension a covers 6 NPUs; the machine has 4")
	m, err := New("m", line{4}, []Dim{Strided("a", "a", 4, 4, 1, false, 0, 0)})
	require.NoError(t, err)
	_, folds := m.Folder()
	require.False(t, folds)
	m2, err := New("m", line{4}, []Dim{Strided("a", "a", 4, 4, 1, false, 0, 0)})
	require.NoError(t, err)
	require.True(t, Same(m, m2))
	require.False(t, Same(m, nil))
}
