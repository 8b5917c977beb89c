package collectives

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acemu/acemu/machine"
)

// A communicator is the set of NPUs a collective combines: by default
// every NPU; with Config.Span, each NPU's group of the dimensions named
// there (on a 4x4x4 torus, Span v,h makes 4 groups of 16 NPUs, one per
// local coordinate, each running the collective on its own data at once).
// Only the hierarchical algorithm builds collectives over a span of
// dimensions (docs/collectives.md, "Communicators").

// spanAxes are the axes the collective spans, in the axes' order: Span's,
// or every axis when Span is empty.
func (c Config) spanAxes() ([]machine.Dim, error) {
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
// npu's coordinates outside the span.
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
