package collectives

import (
	"fmt"
	"slices"
	"strings"
)

// A communicator is the set of NPUs a collective combines: by default
// every NPU; with Config.Span, each NPU's group of the dimensions named
// there (on a 4x4x4 torus, Span v,h makes 4 groups of 16 NPUs, one per
// local coordinate, each running the collective on its own data at once).
// Only the hierarchical algorithm builds collectives over a span of
// dimensions (docs/collectives.md, "Communicators").

// spanAxes are the axes the collective spans, in the axes' order: Span's,
// or every axis when Span is empty.
func (c Config) spanAxes() ([]Axis, error) {
	axes := c.axes()
	if len(c.Span) == 0 {
		return axes, nil
	}
	var names []string
	for _, a := range axes {
		names = append(names, a.Name)
	}
	picked := make([]bool, len(axes))
	for _, s := range c.Span {
		i := slices.IndexFunc(axes, func(a Axis) bool {
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
	var out []Axis
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
	n := p.Shape.N()
	if len(p.span) == 0 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := []int{npu}
	for _, a := range p.span {
		digit := (npu / a.Stride) % a.Size
		var next []int
		for _, m := range out {
			base := m - digit*a.Stride
			for d := 0; d < a.Size; d++ {
				next = append(next, base+d*a.Stride)
			}
		}
		out = next
	}
	slices.Sort(out)
	return out
}

// GroupSize is the number of NPUs in each communicator group.
func (p *Plan) GroupSize() int { return len(p.Members(0)) }
