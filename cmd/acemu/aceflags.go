package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/platform"
)

// registerACEFlags registers ACE's design-point flags, shared by the
// collective and workload commands; the platform reads them (flagKeys) and
// gives their defaults (docs/model-choices.md gives every default's source).
func registerACEFlags(fs *pflag.FlagSet) {
	fs.String("sram", defaultOf("ace.sram"), "ACE SRAM size (Table IV: 4 × 1 MB)")
	intFlag(fs, "fsms", platform.Default().ACE.FSMs, "ACE programmable FSMs")
	registerACEDesignFlags(fs)
}

// registerACEDesignFlags registers every ACE flag but the SRAM size and FSM
// count (a sweep takes those as lists).
func registerACEDesignFlags(fs *pflag.FlagSet) {
	intFlag(fs, "sram-port-bytes", int(platform.Default().ACE.PortBytes), "bytes per cycle of one ACE SRAM port (the paper's 64 B buses)")
	fs.String("sram-ports", defaultOf("ace.ports_per_bank"), "read ports, and write ports, per ACE SRAM bank: derived (as many as the links and the DMA need), literal (one, the paper read literally) or a number")
	fs.String("partition", defaultOf("ace.partition"), "how ACE's SRAM is split among phases: little (Little's law for the chunk flow) or paper (the paper's heuristic)")
	fs.String("notice", defaultOf("ace.notice"), "when an ACE tells its senders it is ready for a chunk's phase: room (when it holds room for it, granted ahead) or fsm (when the phase's FSM takes the chunk up)")
	fs.String("prefetch", defaultOf("ace.prefetch"), "how far ahead ACE loads chunks and moves them into a phase: fsm (while fewer wait for that phase's FSMs than it has) or room (whenever the partition has room)")
	fs.String("fsm-split", defaultOf("ace.fsm_split"), "how ACE's FSMs are divided among phases: latency or even")
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
