package reproduce

import (
	"context"
	"fmt"

	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/sweep"
)

// Trained is what a figure made of training runs shares: the workloads it
// trains on every topology, each run the comparator's (compare.Run) on
// Platform, run as an acemu sweep (docs/sweeps.md) whose points come back
// in a fixed order whatever the number of workers.
type Trained struct {
	// Platform is every run's platform: its compute regime
	// (training.compute, training.batch), iterations, memory policy, ACE,
	// links and AFI.
	Platform platform.Platform
	// Workloads are built-in names (in Platform's compute regime) or
	// ASTRA-sim files; Topos torus shapes.
	Workloads []string
	Topos     []string
	// Workers is how many runs go at once (0: GOMAXPROCS).
	Workers int
	// Progress, if set, is told how many of the runs have finished.
	Progress func(done, total int)
	// Keep is where the sweep's points are kept (sweep.Options.Dir: run
	// again, it runs only those not there); with a shard of more than one,
	// only the shard's points run into Dir and it returns
	// sweep.ErrSharded.
	Keep
}

// train runs the figure's sweep: sets (each KEY=VALUE or a list, as
// --set) on the platform, then every workload on every topology, the
// systems at each point, reference naming the point the sweep normalises
// to. The points come in the sweep's order: the axes' combinations, then
// workloads, then topologies (the last varying fastest).
func (o Trained) train(fig string, sets, systems, reference []string) ([]sweep.PointResult, error) {
	req := sweep.Request{Base: o.Platform, Sets: sets, Workloads: o.Workloads, Topologies: o.Topos, Systems: systems, Reference: reference}
	req.Names.Workloads, req.Names.Topologies = "--workloads", "--topos"
	spec, err := sweep.New(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fig, err)
	}
	if o.Shard.N > 1 && o.Dir == "" {
		return nil, fmt.Errorf("%s: --shard needs --out: a shard's points are kept for the merge", fig)
	}
	oc, err := sweep.Run(context.Background(), spec, sweep.Options{Workers: o.Workers, Dir: o.Dir, Progress: o.Progress, Shard: o.Shard, Ran: o.Ran})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fig, err)
	}
	if o.Shard.N > 1 {
		return nil, sweep.ErrSharded
	}
	return oc.Points, nil
}

// Run runs the figure's training runs: sets (each KEY=VALUE or a list, as
// --set: the sweep's axes) on the platform, then every workload on every
// topology, systems at each point, as an acemu sweep (train); fig names
// the figure in errors. The points come in the sweep's order: the axes'
// combinations, then workloads, then topologies.
func (o Trained) Run(fig string, sets, systems []string) ([]sweep.PointResult, error) {
	return o.train(fig, sets, systems, nil)
}
