package collectives

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acemu/acemu/machine"
)

// A communicator is the set of NPUs a collective combines: by default
// every NPU; with Config.Span, each NPU's group of the dimensions named
// there (on a 4x4x4 torus, Span v,h makes 4 groups of 16 NPUs, one per
// local coordinate, each running the collective on its own data at once);
// with Config.Groups, each NPU's group of those listed (on 4x4x1, the
// diagonals {0,5,10,15}, {1,6,11,12}, {2,7,8,13}, {3,4,9,14}), which
// becomes one more dimension, GroupsName, of explicit groups whose
// messages are routed. Only the hierarchical algorithm builds collectives
// over a span of dimensions or listed groups (docs/collectives.md,
// "Communicators").

// GroupsName and GroupsShort name the dimension of Config.Groups, in
// phase names and in a phase list (rs:group, ag:g).
const (
	GroupsName  = "group"
	GroupsShort = "g"
)

// spanned reports whether the collective has a communicator other than
// every NPU.
func (c Config) spanned() bool { return len(c.Span) > 0 || c.Groups != nil }

// spanWord is what a message calls the communicator: "group" of
// dimensions or listed "groups".
func (c Config) spanWord() string {
	if c.Groups != nil {
		return "groups"
	}
	return "group"
}

// spanDesc describes the communicator for messages.
func (c Config) spanDesc() string {
	if c.Groups != nil {
		s := FormatGroups(c.Groups)
		if len(s) > 60 {
			s = s[:60] + "…"
		}
		return fmt.Sprintf("listed groups of NPUs (%s)", s)
	}
	return fmt.Sprintf("a group of dimensions (%s)", strings.Join(c.Span, ","))
}

// FormatGroups writes groups of NPUs as members comma-separated, groups
// slash-separated, in the order given: 0,5,10,15/1,6,11,12. It is one
// spelling per list (afi plans by it).
func FormatGroups(groups [][]int) string {
	var b strings.Builder
	for i, g := range groups {
		if i > 0 {
			b.WriteByte('/')
		}
		for j, m := range g {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(m))
		}
	}
	return b.String()
}

// groupsDim is the dimension of Config.Groups: explicit groups, not a
// ring of links (messages between members are routed).
func (c Config) groupsDim() (machine.Dim, error) {
	n := c.Machine.N()
	groups := make([][]int, len(c.Groups)) // the dimension keeps them: a copy the caller cannot change
	for i, g := range c.Groups {
		groups[i] = slices.Clone(g)
	}
	d, err := machine.Explicit(GroupsName, GroupsShort, n, groups, nil)
	if err != nil {
		return machine.Dim{}, fmt.Errorf("communicator groups: %w; list each of the %d NPUs of %s (0 to %d) in exactly one group, the groups equally large", err, n, c.Machine, n-1)
	}
	if d.Size < 2 {
		return machine.Dim{}, fmt.Errorf("communicator groups: groups of 1 NPU, so each is a single NPU with nothing to combine; list groups of at least 2 NPUs")
	}
	return d, nil
}

// spanAxes are the axes the collective spans, in the axes' order: Span's,
// the dimension of Groups, or every axis when neither is given.
func (c Config) spanAxes() ([]machine.Dim, error) {
	if c.Groups != nil {
		d, err := c.groupsDim()
		if err != nil {
			return nil, err
		}
		return []machine.Dim{d}, nil
	}
	axes := c.dims()
	if len(c.Span) == 0 {
		return axes, nil
	}
	var names []string
	for _, a := range axes {
		names = append(names, a.Name)
	}
	picked := make([]bool, len(axes))
	for _, s := range c.Span {
		i := slices.IndexFunc(axes, func(a machine.Dim) bool {
			return strings.EqualFold(s, a.Name) || strings.EqualFold(s, a.Short)
		})
		switch {
		case i < 0:
			return nil, fmt.Errorf("group dimension %q is not %s", s, orList(names))
		case picked[i]:
			return nil, fmt.Errorf("group dimension %s is given twice; name each once", axes[i].Name)
		}
		picked[i] = true
	}
	var out []machine.Dim
	for i, a := range axes {
		if picked[i] {
			out = append(out, a)
		}
	}
	return out, nil
}

// Members returns the NPUs of npu's communicator group in id order: every
// NPU when the collective spans every dimension, else those that share
// npu's coordinates outside the span, or npu's listed group.
func (p *Plan) Members(npu int) []int {
	n := p.Machine.N()
	if len(p.span) == 0 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	return spanMembers(p.span, npu)
}

// spanMembers are the NPUs reached from npu through the groups of dims,
// in id order, each once.
func spanMembers(dims []machine.Dim, npu int) []int {
	out := []int{npu}
	for i := range dims {
		var next []int
		for _, m := range out {
			for j := 0; j < dims[i].Size; j++ {
				next = append(next, dims[i].Member(m, j))
			}
		}
		out = next
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// GroupSize is the number of NPUs in each communicator group.
func (p *Plan) GroupSize() int { return len(p.Members(0)) }
