package machine

import (
	"slices"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
)

// LinkShare is the busy share of one group of a machine's links over a
// run.
type LinkShare struct {
	Label string // the links' group: a torus dimension, or "all"
	Links int    // how many links (on a folded network, every NPU's)
	Share float64
}

// LinkUtilization is the busy share of the machine's links over a run of
// the given length, per group of PortLabels in their order (each NPU
// link by the label of its port), or of every link as one group, "all",
// when the machine has no labels. Shares are exact until rounded to a
// float at the end.
func (m *Machine) LinkUtilization(net *fabric.Network, cycles rtl.Cycle) []LinkShare {
	var order []string
	groups := map[string][]*fabric.Link{}
	for _, l := range net.Links {
		label := "all"
		if m.PortLabels != nil && l.Src < m.N() && l.Port < len(m.PortLabels) {
			label = m.PortLabels[l.Port]
		}
		groups[label] = append(groups[label], l)
	}
	for _, p := range m.PortLabels {
		if len(groups[p]) > 0 && !slices.Contains(order, p) {
			order = append(order, p)
		}
	}
	if len(groups["all"]) > 0 && !slices.Contains(order, "all") {
		order = append(order, "all")
	}
	out := make([]LinkShare, 0, len(order))
	for _, label := range order {
		u := LinkShare{Label: label, Links: len(groups[label]), Share: fabric.MeanUtilization(groups[label], cycles)}
		if net.Folded() { // NPU 0's links stand for every NPU's
			u.Links *= m.N()
		}
		out = append(out, u)
	}
	return out
}
