package topology

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
)

// gridFile is 8 NPUs as 2 rows of 4: each row a ring of intra links (each
// NPU first to the next in its row, then to the previous), each column a
// pair joined by an inter link each way, with dims rows (a ring) and cols
// (routed). NPU 0's links in file order: port 0 → 1, port 1 → 3, port 2 →
// 4.
const gridFile = "../testdata/topo_grid_dims.yaml"

// gridParts are gridFile's NPUs and links, and its dims.
func gridParts(t *testing.T) (links, dims string) {
	b, err := os.ReadFile(gridFile)
	require.NoError(t, err)
	links, dims, ok := strings.Cut(string(b), "dims:\n")
	require.True(t, ok)
	return links, "dims:\n" + dims
}

// grid is gridFile's NPUs and links with dims instead of its own ("" for
// none).
func grid(t *testing.T, dims string) string {
	links, _ := gridParts(t)
	return links + dims
}

// A file's dims are its machine's, in order: rows a ring whose ports are
// each member's links to its next and previous member (ports 0 and 1 of
// every NPU, by the file's order), cols routed; short names are the first
// letters.
func TestFileDimsAreTheMachines(t *testing.T) {
	b, err := os.ReadFile(gridFile)
	require.NoError(t, err)
	f, err := Load("grid.yaml", b)
	require.NoError(t, err)
	m, err := f.Machine()
	require.NoError(t, err)
	require.Len(t, m.Dims, 2)
	rows, cols := &m.Dims[0], &m.Dims[1]
	require.Equal(t, []any{"rows", "r", 4, true}, []any{rows.Name, rows.Short, rows.Size, rows.Ring})
	require.Equal(t, []any{"cols", "c", 2, false}, []any{cols.Name, cols.Short, cols.Size, cols.Ring})
	g, pos := rows.Group(6)
	require.Equal(t, []int{4, 5, 6, 7}, g)
	require.Equal(t, 2, pos)
	g, pos = cols.Group(6)
	require.Equal(t, []int{2, 6}, g)
	require.Equal(t, 1, pos)
	for n := range 8 {
		plus, minus := rows.Ports(n)
		require.Equal(t, [2]int8{0, 1}, [2]int8{plus, minus}, "NPU %d", n)
	}
	require.Equal(t, f, m.Ports)

	// Without dims: the one routed dimension all, every NPU in id order.
	f, err = Load("grid.yaml", []byte(grid(t, "")))
	require.NoError(t, err)
	m, err = f.Machine()
	require.NoError(t, err)
	require.Len(t, m.Dims, 1)
	require.Equal(t, []any{"all", "a", 8, false}, []any{m.Dims[0].Name, m.Dims[0].Short, m.Dims[0].Size, m.Dims[0].Ring})
	require.True(t, defaultDims(m.Dims))
}

// A ring's port to a neighbour is the first of the member's links to it,
// in file order: NPU 0 has two lanes to NPU 1 (ports 0 and 1) and one to
// NPU 2 (port 2), so its ports are 0 (next, 1) and 2 (previous, 2); NPU 1
// reaches 2 (next) by port 0 and 0 by port 1; NPU 2 reaches 0 (next) by
// port 0 and 1 by port 1. A ring of two
// sends both ways by its one link to the other member.
func TestFileRingTakesTheFirstLink(t *testing.T) {
	text := `npus: 3
links:
  - {from: 0, to: 1, class: intra, lanes: 2}
  - {from: 0, to: 2, class: intra}
  - {from: 1, to: 2, class: intra}
  - {from: 1, to: 0, class: intra}
  - {from: 2, to: 0, class: intra}
  - {from: 2, to: 1, class: intra}
dims:
  - {name: tri, short: x, ring: true, groups: [[0, 1, 2]]}
`
	f, err := Load("tri.yaml", []byte(text))
	require.NoError(t, err)
	m, err := f.Machine()
	require.NoError(t, err)
	d := &m.Dims[0]
	require.Equal(t, "x", d.Short)
	for _, tc := range []struct{ npu, plus, minus int8 }{{0, 0, 2}, {1, 0, 1}, {2, 0, 1}} {
		plus, minus := d.Ports(int(tc.npu))
		require.Equal(t, []int8{tc.plus, tc.minus}, []int8{plus, minus}, "NPU %d", tc.npu)
	}

	pair, err := Load("pair.yaml", []byte("npus: 2\nlinks:\n  - {from: 0, to: 1, class: intra}\n  - {from: 1, to: 0, class: intra}\ndims:\n  - {name: p, ring: true, groups: [[0, 1]]}\n"))
	require.NoError(t, err)
	m, err = pair.Machine()
	require.NoError(t, err)
	plus, minus := m.Dims[0].Ports(1)
	require.Equal(t, []int8{0, 0}, []int8{plus, minus})
}

// Dims a file cannot have are refused, naming the file, the dimension and
// the fix.
func TestFileDimsRefused(t *testing.T) {
	nine := "dims:\n"
	for i := range 9 {
		nine += fmt.Sprintf("  - {name: d%d, short: s%d, groups: [[0, 1, 2, 3, 4, 5, 6, 7]]}\n", i, i)
	}
	all := "[[0, 1, 2, 3, 4, 5, 6, 7]]"
	for _, tc := range []struct {
		name, dims, msg string
	}{
		{"too many", nine, "grid.yaml: 9 dims; give at most 8"},
		{"no name", "dims:\n  - {groups: " + all + "}\n", `grid.yaml: dims[0]: name "": give a name of 1 to 32 letters`},
		{"name with a colon", "dims:\n  - {name: \"a:b\", groups: " + all + "}\n", `grid.yaml: dims[0]: name "a:b"`},
		{"name from a digit", "dims:\n  - {name: 2d, groups: " + all + "}\n", `dims[0]: name "2d"`},
		{"bad short", "dims:\n  - {name: rows, short: \"r,\", groups: " + all + "}\n", `grid.yaml: dimension rows: short "r,": give 1 to 32 letters`},
		{"same name", "dims:\n  - {name: rows, groups: " + all + "}\n  - {name: rows, short: q, groups: " + all + "}\n",
			`grid.yaml: dimension rows: "rows" is already dimension rows's name or short name (names are matched without regard to case): give each dimension its own name`},
		{"same name but for case", "dims:\n  - {name: rows, groups: " + all + "}\n  - {name: ROWS, short: q, groups: " + all + "}\n",
			`dimension ROWS: "ROWS" is already dimension rows's name`},
		{"default shorts clash", "dims:\n  - {name: rows, groups: " + all + "}\n  - {name: ring, groups: " + all + "}\n",
			`grid.yaml: dimension ring: "r" is already dimension rows's name or short name (names are matched without regard to case): give this dimension another short: (it defaults to the name's first letter)`},
		{"name is another's short", "dims:\n  - {name: rows, groups: " + all + "}\n  - {name: r, groups: " + all + "}\n",
			`dimension r: "r" is already dimension rows's`},
		{"no groups", "dims:\n  - {name: rows}\n", "grid.yaml: dimension rows: no groups; list its groups of NPUs"},
		{"an NPU left out", "dims:\n  - {name: rows, groups: [[0, 1, 2, 3], [4, 5, 6]]}\n",
			"grid.yaml: dimension rows: group 1 has 3 NPUs, group 0 has 4; its groups must be equally large (a dimension's groups list every NPU 0 to 7 once, in groups of equal size)"},
		{"an NPU in no group", "dims:\n  - {name: rows, groups: [[0, 1], [2, 3], [4, 5]]}\n", "grid.yaml: dimension rows: NPU 6 is in no group; each NPU belongs to one"},
		{"an NPU twice", "dims:\n  - {name: rows, groups: [[0, 1, 2, 3], [4, 5, 6, 0]]}\n", "dimension rows: NPU 0 is in two groups (0 and 1)"},
		{"no such NPU", "dims:\n  - {name: rows, groups: [[0, 1, 2, 3], [4, 5, 6, 8]]}\n", "dimension rows: group 1 names NPU 8; the NPUs are 0 to 7"},
		// Rows' second ring runs 4 → 6: no link (4 links to 5, 7 and 0).
		{"a ring without a link", "dims:\n  - {name: rows, ring: true, groups: [[0, 1, 2, 3], [4, 6, 5, 7]]}\n",
			"grid.yaml: dimension rows: group 1 is a ring, but NPU 4 has no link to NPU 6, its neighbour on it: add a link from 4 to 6, or leave out ring: true"},
		// 0 and 5 are in no row or column together: no link either way.
		{"a ring of two without links", "dims:\n  - {name: pairs, ring: true, groups: [[0, 5], [1, 4], [2, 7], [3, 6]]}\n",
			"grid.yaml: dimension pairs: group 0 is a ring, but NPU 0 has no link to NPU 5, its neighbour on it; a ring of two needs a link each way"},
		{"an unknown key", "dims:\n  - {name: rows, rings: true, groups: " + all + "}\n", "field rings not found"},
		{"not a list", "dims: rows\n", "grid.yaml: not a topology"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("grid.yaml", []byte(grid(t, tc.dims)))
			require.ErrorContains(t, err, tc.msg)
		})
	}
	// A ring of two with a link one way only: 0 → 1 but not back.
	_, err := Load("one.yaml", []byte("npus: 2\nswitches: 1\nlinks:\n  - {from: 0, to: 1, class: intra}\n  - {from: 0, to: 2, class: tier0}\n  - {from: 1, to: 2, class: tier0}\n  - {from: 2, to: 0, class: tier0}\n  - {from: 2, to: 1, class: tier0}\ndims:\n  - {name: p, ring: true, groups: [[0, 1]]}\n"))
	require.ErrorContains(t, err, "one.yaml: dimension p: group 0 is a ring, but NPU 1 has no link to NPU 0, its neighbour on it; a ring of two needs a link each way")
}

// requireSameDims fails unless a and b are the same dimensions: names,
// groups in member order, rings and every NPU's ring ports.
func requireSameDims(t *testing.T, a, b []machine.Dim) {
	t.Helper()
	require.Len(t, b, len(a))
	for i := range a {
		x, y := &a[i], &b[i]
		require.Equal(t, []any{x.Name, x.Short, x.Size, x.Ring}, []any{y.Name, y.Short, y.Size, y.Ring})
		require.True(t, machine.SameGroups(x, y), "dimension %s", x.Name)
		for n := range x.N() {
			xp, xm := x.Ports(n)
			yp, ym := y.Ports(n)
			if x.Ring {
				require.Equal(t, []int8{xp, xm}, []int8{yp, ym}, "dimension %s NPU %d", x.Name, n)
			}
		}
	}
}

// dgx1's dump holds its ring (0, 1, 2, 3, 7, 5, 6, 4) and a switch
// fabric's its tiers as groups; read back, the file's machine has the
// same dims (groups, member order, ring ports), and a second dump is the
// first. A file's dims round-trip too, a short name that is not the
// default included; a torus's network dumped without dims has none.
func TestDumpedDimsReadBack(t *testing.T) {
	for _, tc := range []struct {
		topo, has string
	}{
		{"dgx1", "dims:\n  - name: ring\n    ring: true\n    groups:\n      - [0, 1, 2, 3, 7, 5, 6, 4]\nlinks:\n"},
		{"switch:4x2", "  - name: spine\n    groups:\n      - [0, 4]\n      - [1, 5]\n"},
	} {
		t.Run(tc.topo, func(t *testing.T) {
			spec, err := Parse(tc.topo)
			require.NoError(t, err)
			net, err := spec.Build(rtl.NewKernel(), DefaultLinkSettings(), false)
			require.NoError(t, err)
			b, err := Dump(net, spec.Machine.Dims, nil, DefaultLinkSettings(), Classed)
			require.NoError(t, err)
			require.Contains(t, string(b), tc.has)
			f, err := Load("dump.yaml", b)
			require.NoError(t, err)
			m, err := f.Machine()
			require.NoError(t, err)
			requireSameDims(t, spec.Machine.Dims, m.Dims)
			back, err := f.Build(rtl.NewKernel(), DefaultLinkSettings())
			require.NoError(t, err)
			b2, err := Dump(back, m.Dims, nil, DefaultLinkSettings(), Classed)
			require.NoError(t, err)
			require.Equal(t, string(b), string(b2))
		})
	}
	links, dims := gridParts(t)
	f, err := Load("grid.yaml", []byte(links+strings.Replace(dims, "name: cols", "name: cols\n    short: k", 1)))
	require.NoError(t, err)
	m, err := f.Machine()
	require.NoError(t, err)
	net, err := f.Build(rtl.NewKernel(), DefaultLinkSettings())
	require.NoError(t, err)
	b, err := Dump(net, m.Dims, nil, DefaultLinkSettings(), Classed)
	require.NoError(t, err)
	require.Contains(t, string(b), "  - name: cols\n    short: k\n")
	back, err := Load("back.yaml", b)
	require.NoError(t, err)
	mb, err := back.Machine()
	require.NoError(t, err)
	requireSameDims(t, m.Dims, mb.Dims)

	// The default dimension, all, is not written.
	f, err = Load("grid.yaml", []byte(grid(t, "")))
	require.NoError(t, err)
	m, err = f.Machine()
	require.NoError(t, err)
	b, err = Dump(net, m.Dims, nil, DefaultLinkSettings(), Classed)
	require.NoError(t, err)
	require.NotContains(t, string(b), "dims")
}

// A ring whose port is not the member's first link to its neighbour (GPU
// 2 of dgx1 sending to GPU 3, its next on the ring, by its second lane)
// cannot be written: a file's ring would read back the first.
func TestDumpRefusesARingPortAFileCannotHold(t *testing.T) {
	spec, err := Parse("dgx1")
	require.NoError(t, err)
	ring := &spec.Machine.Dims[0]
	ports := make([][2]int8, 8)
	for n := range ports {
		ports[n][0], ports[n][1] = ring.Ports(n)
	}
	ports[2][0]++ // 2 → 3 has two lanes: the second
	g, _ := ring.Group(0)
	d, err := machine.Explicit("ring", "r", 8, [][]int{g}, ports)
	require.NoError(t, err)
	net, err := spec.Build(rtl.NewKernel(), DefaultLinkSettings(), false)
	require.NoError(t, err)
	_, err = Dump(net, []machine.Dim{d}, nil, DefaultLinkSettings(), Classed)
	require.ErrorContains(t, err, "a topology file cannot hold dimension ring: NPU 2's ring port 4 toward NPU 3 is not the link to it a file's ring takes")
}
