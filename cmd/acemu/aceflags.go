package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/ace"
)

// aceFlags are ACE's design-point flags, shared by the collective and
// workload commands (docs/ace-model.md gives every default's source).
type aceFlags struct {
	sram, ports, partition, fsmSplit, notice, prefetch string
	fsms, portBytes                                    int
}

func (a *aceFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&a.sram, "sram", defaultOf("ace.sram"), "ACE SRAM size (Table IV: 4 × 1 MB)")
	fs.IntVar(&a.fsms, "fsms", ace.Default().FSMs, "ACE programmable FSMs")
	a.registerDesign(fs)
}

// registerDesign registers every ACE flag but the SRAM size and FSM count
// (a sweep takes those as lists).
func (a *aceFlags) registerDesign(fs *pflag.FlagSet) {
	d := ace.Default()
	a.sram, a.fsms = defaultOf("ace.sram"), d.FSMs
	fs.IntVar(&a.portBytes, "sram-port-bytes", int(d.PortBytes), "bytes per cycle of one ACE SRAM port (the paper's 64 B buses)")
	fs.StringVar(&a.ports, "sram-ports", defaultOf("ace.ports_per_bank"), "read ports, and write ports, per ACE SRAM bank: derived (as many as the links and the DMA need), literal (one, the paper read literally) or a number")
	fs.StringVar(&a.partition, "partition", d.Partition, "how ACE's SRAM is split among phases: little (Little's law for the chunk flow) or paper (the paper's heuristic)")
	fs.StringVar(&a.notice, "notice", d.Notice, "when an ACE tells its senders it is ready for a chunk's phase: room (when it holds room for it, granted ahead) or fsm (when the phase's FSM takes the chunk up)")
	fs.StringVar(&a.prefetch, "prefetch", d.Prefetch, "how far ahead ACE loads chunks and moves them into a phase: fsm (while fewer wait for that phase's FSMs than it has) or room (whenever the partition has room)")
	fs.StringVar(&a.fsmSplit, "fsm-split", d.FSMSplit, "how ACE's FSMs are divided among phases: latency or even")
}

// aceFlagNames are the flags of ACE's design point.
var aceFlagNames = []string{"sram", "fsms", "sram-port-bytes", "sram-ports", "partition", "notice", "prefetch", "fsm-split", "ace-mem-bw"}

// refuseFlags fails when any of names was given on fs: they do not apply
// to what runs (why says what they are for), so they would be silently
// ignored.
func refuseFlags(fs *pflag.FlagSet, names []string, why string) error {
	for _, n := range names {
		if f := fs.Lookup(n); f != nil && f.Changed {
			return fmt.Errorf("--%s %s; drop it", n, why)
		}
	}
	return nil
}
