// Package admit holds the checks every collective engine (the ideal and
// baseline endpoints, ACE) makes when a collective is issued to it, so that
// they are written once: the plan's machine is the engine's, the issue is
// not in the past, on a folded network (one NPU standing for all) the
// plan runs the same program on every NPU up to a translation of the
// machine (checked once per plan), and on a full one an all-to-all has at
// most machine.MaxFullAllToAllNPUs NPUs.
package admit

import (
	"fmt"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
)

// Gate is one engine's admission checks.
type Gate struct {
	name string
	k    *rtl.Kernel
	m    *machine.Machine
	fold bool
}

// New returns the gate of the engine called name (for messages) on
// machine m, driven by k, on a folded network or not.
func New(name string, k *rtl.Kernel, m *machine.Machine, folded bool) *Gate {
	return &Gate{name: name, k: k, m: m, fold: folded}
}

// Admit checks plan issued at cycle now.
func (g *Gate) Admit(now rtl.Cycle, plan *collectives.Plan) error {
	switch {
	case !machine.Same(plan.Machine, g.m):
		return fmt.Errorf("%scollective planned for %s on an engine for %s", g.prefix(), plan.Machine, g.m)
	case now < g.k.Now():
		return fmt.Errorf("%scollective issued at cycle %d, before the current cycle %d", g.prefix(), now, g.k.Now())
	}
	if g.fold { // the plan keeps the answer
		if err := collectives.CheckEquivariant(plan); err != nil {
			return fmt.Errorf("%son a folded network: %w", g.on(), err)
		}
	} else if plan.Op == collectives.OpAllToAll {
		if err := machine.CheckFullAllToAll(g.m.Name, g.m.N()); err != nil {
			return fmt.Errorf("%s%w", g.prefix(), err)
		}
	}
	return nil
}

func (g *Gate) prefix() string {
	if g.name == "" {
		return ""
	}
	return g.name + ": "
}

func (g *Gate) on() string {
	if g.name == "" {
		return ""
	}
	return g.name + " "
}
