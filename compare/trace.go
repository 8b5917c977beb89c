package compare

import (
	"fmt"

	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/chakra"
	"github.com/acemu/acemu/chakra/runner"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/endpoint"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// Trace is a Chakra execution trace to compare the systems on, in place
// of Options.Workload (docs/chakra.md): every rank runs its own graph on
// its own NPU, every NPU simulated.
type Trace struct {
	Set *chakra.Set
	// Units is how the nodes' duration_micros is read.
	Units runner.Units
	// Groups maps the trace's process groups (pg_name) to their ranks.
	Groups map[string][]int
}

// collectives lists the distinct collectives of the trace, each with
// the listed groups of its process group, for the bounds checked before
// the run (checkSimulated) and ACE's layout (kindsOf).
func (t *Trace) collectives() ([]issued, error) {
	groupsOf, err := runner.NodeGroups(t.Set, t.Groups)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []issued
	for r, rk := range t.Set.Ranks {
		for i := range rk.Nodes {
			n := &rk.Nodes[i]
			c, err := runner.CollectiveOf(n)
			if err != nil || c == nil {
				continue // the runner names it
			}
			g := train.Group{Groups: groupsOf(r, i)}
			if g.Groups != nil {
				g.Size = len(g.Groups[0]) // a partition's groups are equally large
			}
			key := fmt.Sprint(c.Type, c.Bytes, collectives.FormatGroups(g.Groups))
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, issued{Comm: workload.Comm{Type: c.Type, Bytes: c.Bytes}, group: g, what: fmt.Sprintf("%s node %d (%s)", rk.Name, n.ID, n.Name)})
		}
	}
	return out, nil
}

// traceComm is the runner's view of the AFI: the training loop's
// (comm.IssueWith: padded per member of its communicator), on the
// collective's listed groups.
type traceComm struct{ comm }

func (c traceComm) Issue(now rtl.Cycle, x runner.Collective, done func(now rtl.Cycle)) error {
	o := train.IssueOptions{Done: done}
	if x.Groups != nil {
		o.Group = train.Group{Groups: x.Groups, Size: len(x.Groups[0])}
	}
	return c.IssueWith(now, x.Type, x.Bytes, o)
}

// runTrace runs o.Trace on one system's assembled run, and gives its
// account in the training loop's shape (docs/chakra.md, "In the
// comparator"): one iteration from the start to the end of the last
// rank, the compute of that rank (the critical one), the rest of the run
// its exposed communication.
func runTrace(o Options, k *rtl.Kernel, ep *endpoint.Endpoint, a *afi.Interface, tc train.Config) (*train.Metrics, error) {
	npus := o.Machine.Machine.N()
	sides := make([]contend.Comm, npus)
	for r := range sides {
		s, err := ep.SideOf(r, npus)
		if err != nil {
			return nil, err
		}
		sides[r] = s
	}
	res, err := runner.Run(k, o.Trace.Set, runner.Config{Units: o.Trace.Units, Train: tc, Groups: o.Trace.Groups, Side: func(r int) contend.Comm { return sides[r] }}, traceComm{comm{a: a, npus: npus}})
	if err != nil {
		return nil, err
	}
	crit := res.Ranks[res.Critical]
	total := int64(res.End - res.Start)
	it := train.Iteration{Start: res.Start, End: res.End, BackStart: res.End, ComputeCycles: crit.ComputeCycles, ExposedCommCycles: total - crit.ComputeCycles,
		IterationCycles: total, Collectives: res.Collectives, CollectiveBytes: res.CollectiveBytes, ByType: res.ByType}
	return &train.Metrics{Workload: o.Trace.Set.Name, Iterations: []train.Iteration{it}, Start: res.Start, End: res.End,
		ComputeCycles: it.ComputeCycles, ExposedCommCycles: it.ExposedCommCycles, TotalCycles: total,
		Collectives: res.Collectives, CollectiveBytes: res.CollectiveBytes, ByType: res.ByType}, nil
}

// checkTrace refuses, before the run, what the systems cannot run of
// o.Trace: a rank count other than the NPUs', and a graph the runner
// refuses (runner.Check); Run then checks its collectives' sizes as a
// workload's (checkSimulated).
func checkTrace(o Options) error {
	npus := o.Machine.Machine.N()
	if len(o.Trace.Set.Ranks) != npus {
		return fmt.Errorf("%s: the trace has %d ranks but the machine has %d NPUs; every NPU runs one rank", o.Trace.Set.Name, len(o.Trace.Set.Ranks), npus)
	}
	if err := runner.Check(o.Trace.Set, runner.Config{Units: o.Trace.Units, Groups: o.Trace.Groups}); err != nil {
		return err
	}
	return nil
}
