package topology

import (
	"fmt"
	"strings"

	"github.com/acemu/acemu/machine"
)

// MaxFileDims is the most dimensions a topology file declares.
const MaxFileDims = 8

// maxDimName bounds a dimension's name and short name.
const maxDimName = 32

// dimDoc is a dimension in the file's form: its name, its short name (the
// first letter of its name when left out), whether its groups are rings of
// links, and its groups of NPUs, each in member order.
type dimDoc struct {
	Name   string  `yaml:"name" json:"name"`
	Short  string  `yaml:"short,omitempty" json:"short,omitempty"`
	Ring   bool    `yaml:"ring,omitempty" json:"ring,omitempty"`
	Groups [][]int `yaml:"groups" json:"groups"`
}

// dimName checks a dimension's name or short name: a letter, then letters,
// digits, - or _ (what --phases and --group can name).
func dimName(s string) bool {
	if s == "" || len(s) > maxDimName {
		return false
	}
	for i, r := range s {
		letter := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '-' || r == '_')) {
			return false
		}
	}
	return true
}

// loadDims builds the dimensions a file declares (ds): names checked,
// groups a partition of the NPUs (machine.Explicit), and a ring's ports
// each member's first link, in file order, to its next and previous
// member.
func (f *File) loadDims(ds []dimDoc) error {
	if len(ds) > MaxFileDims {
		return fmt.Errorf("%s: %d dims; give at most %d", f.Name, len(ds), MaxFileDims)
	}
	taken := map[string]int{} // lower-case name or short name → the index of the dimension that has it
	for i, d := range ds {
		where := fmt.Sprintf("%s: dims[%d]", f.Name, i)
		if !dimName(d.Name) {
			return fmt.Errorf("%s: name %q: give a name of 1 to %d letters, digits, - or _, starting with a letter (e.g. rows), for --phases and --group to name it", where, d.Name, maxDimName)
		}
		where = fmt.Sprintf("%s: dimension %s", f.Name, d.Name)
		short := d.Short
		if short == "" {
			short = d.Name[:1]
		}
		if !dimName(short) {
			return fmt.Errorf("%s: short %q: give 1 to %d letters, digits, - or _, starting with a letter, or leave it out for %q", where, short, maxDimName, d.Name[:1])
		}
		for _, s := range []string{d.Name, short} {
			k := strings.ToLower(s)
			if other, ok := taken[k]; ok && other != i {
				how := "give each dimension its own name"
				if s == short {
					how = "give this dimension another short: (it defaults to the name's first letter)"
				}
				return fmt.Errorf("%s: %q is already dimension %s's name or short name (names are matched without regard to case): %s", where, s, ds[other].Name, how)
			}
			taken[k] = i
		}
		dim, err := machine.Explicit(d.Name, short, f.NPUs, d.Groups, nil)
		if err != nil {
			return fmt.Errorf("%s: %w (a dimension's groups list every NPU 0 to %d once, in groups of equal size)", f.Name, err, f.NPUs-1)
		}
		if d.Ring {
			ports, err := f.ringPorts(where, d.Groups)
			if err != nil {
				return err
			}
			if dim, err = machine.Explicit(d.Name, short, f.NPUs, d.Groups, ports); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
		f.dims = append(f.dims, dim)
	}
	return nil
}

// ringPorts are every NPU's ports to its next and previous member in
// groups (a partition of the NPUs): its first link, in file order, to
// each (in a ring of two, its second link back when it has one:
// ringLane). A group of one has no ring links.
func (f *File) ringPorts(where string, groups [][]int) ([][2]int8, error) {
	ports := make([][2]int8, f.NPUs)
	for g, members := range groups {
		k := len(members)
		for i, a := range members {
			next, prev := members[(i+1)%k], members[(i+k-1)%k]
			if k < 2 {
				break
			}
			var pp [2]int8
			for j, b := range []int{next, prev} {
				lanes := f.PortsTo(a, b)
				if len(lanes) == 0 {
					both := ""
					if k == 2 {
						both = "; a ring of two needs a link each way"
					}
					return nil, fmt.Errorf("%s: group %d is a ring, but NPU %d has no link to NPU %d, its neighbour on it%s: add a link from %d to %d, or leave out ring: true (messages between members are then routed)", where, g, a, b, both, a, b)
				}
				pp[j] = int8(lanes[ringLane(k, j, len(lanes))])
			}
			ports[a] = pp
		}
	}
	return ports, nil
}

// defaultDims reports whether dims are a file's default: one dimension,
// all, of every NPU in id order, not a ring.
func defaultDims(dims []machine.Dim) bool {
	if len(dims) != 1 {
		return false
	}
	d := &dims[0]
	if d.Name != "all" || d.Ring || d.Size != d.N() {
		return false
	}
	for i := range d.Size {
		if d.Member(0, i) != i {
			return false
		}
	}
	return true
}
