package compare

import (
	"fmt"
	"maps"
	"strings"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/train"
)

// CCubeConfig is one of the C-Cube paper's configurations (Section V-B,
// Fig. 13) as acemu runs it: the all-reduce's algorithm, the training
// schedule, and whether the one-shot all-reduce runs as one chunk
// pipelined through its trees (the paper's) or in the platform's chunks.
type CCubeConfig struct {
	Name      string
	Algorithm string
	Schedule  train.Schedule
	Whole     bool
	What      string
}

// CCubeConfigs are the paper's B, C1, C2, CC and R on dgx1.
var CCubeConfigs = []CCubeConfig{
	{"B", "double-tree", train.ScheduleOneShot, true, "the double tree, reduction then broadcast, one-shot"},
	{"C1", "double-tree-overlapped", train.ScheduleOneShot, true, "the overlapped double tree, one-shot"},
	{"C2", "double-tree", train.ScheduleOneShotChained, true, "the double tree, one-shot, gradient queuing"},
	{"CC", "double-tree-overlapped", train.ScheduleOneShotChained, true, "the overlapped double tree, one-shot, gradient queuing (C-Cube)"},
	{"R", "hierarchical", train.ScheduleOneShot, false, "the NVLink ring both ways, one-shot in the platform's chunks (NCCL's ring)"},
}

// CCubeConfigOf looks up one of CCubeConfigs by name (B, C1, C2, CC, R,
// any case).
func CCubeConfigOf(name string) (CCubeConfig, error) {
	var names []string
	for _, c := range CCubeConfigs {
		if strings.EqualFold(strings.TrimSpace(name), c.Name) {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return CCubeConfig{}, fmt.Errorf("C-Cube configuration %q: use one of %s (the C-Cube paper, Section V-B)", name, strings.Join(names, ", "))
}

// Apply sets o to run c on o.Systems: the all-reduce's algorithm, the
// schedule, and for the trees the one-shot all-reduce as one chunk on
// every system but ACE, whose SRAM holds chunks.
func (c CCubeConfig) Apply(o *Options) {
	o.Algorithms = maps.Clone(o.Algorithms)
	if o.Algorithms == nil {
		o.Algorithms = map[collectives.CollectiveOp]string{}
	}
	o.Algorithms[collectives.OpAllReduce] = c.Algorithm
	o.Schedule, o.Schedules, o.WholeOneShot = c.Schedule, nil, nil
	if !c.Whole {
		return
	}
	o.WholeOneShot = map[string]bool{}
	for _, s := range o.Systems {
		if s.Kind != systems.ACE && s.Overlap { // BaselineNoOverlap fuses its own, in the platform's chunks
			o.WholeOneShot[s.Name] = true
		}
	}
}
