package validation

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/sweep"
)

// quickTopos are the tori a figure made of training runs uses in the
// quick subset: 16 NPUs, folded, in the paper's compute regime.
var quickTopos = []string{"4x2x2"}

// trained is a figure's training runs under e: its platform, workers and
// progress, its sweep's points kept in DIR/sweep when e has a directory,
// in the quick subset quickTopos instead of the paper's sizes, and the
// topologies and workloads e's options give.
func trained(e Env, t reproduce.Trained) reproduce.Trained {
	t.Platform, t.Workers, t.Progress, t.Shard, t.Ran = e.Platform, e.Workers, e.Progress, e.Shard, e.Ran
	if e.Dir != "" {
		t.Dir = filepath.Join(e.Dir, "sweep")
	}
	if e.Quick {
		t.Topos = quickTopos
	}
	op := e.opts()
	t.Topos, t.Workloads = orList(op.Topos, t.Topos), orList(op.Workloads, t.Workloads)
	return t
}

// fig10Runs are the five systems' training runs of the paper's three
// workloads (Fig. 10's, Fig. 11's at each size, Fig. 9(b)'s), kept per
// platform and topology so that the runs the figures share run once in
// a report.
var fig10Runs = struct {
	sync.Mutex
	points map[string][]sweep.PointResult
	// sharded holds the runs a shard ran its points of, by their key,
	// the shard and the report's directory, so that the figures after
	// do not run them again in their own directories.
	sharded map[string]bool
}{points: map[string][]sweep.PointResult{}, sharded: map[string]bool{}}

// fig10Points runs the five systems training the paper's three workloads
// on topos under e (each topology a sweep of its own, kept in
// DIR/sweep-TOPO), taking the points run before from fig10Runs. The
// points come workloads first, then topologies, as Fig11's.
func fig10Points(e Env, topos []string) ([]sweep.PointResult, error) {
	def := reproduce.DefaultFig11()
	dump, err := e.Platform.Dump()
	if err != nil {
		return nil, err
	}
	var pts []sweep.PointResult
	var sharded error
	for _, topo := range topos {
		key := fmt.Sprintf("%s\x00%q\x00%s", topo, def.Workloads, dump)
		shardKey := fmt.Sprintf("%s\x00%s\x00%s", key, e.Shard, filepath.Dir(e.Dir))
		fig10Runs.Lock()
		got, ok := fig10Runs.points[key]
		done := e.Shard.N > 1 && fig10Runs.sharded[shardKey]
		fig10Runs.Unlock()
		if done {
			sharded = sweep.ErrSharded
			continue
		}
		if !ok {
			t := trained(e, def.Trained)
			t.Topos = []string{topo}
			if e.Dir != "" {
				t.Dir = filepath.Join(e.Dir, "sweep-"+topo)
			}
			if got, err = t.Run("the five systems on "+topo, nil, reproduce.Fig11Systems); errors.Is(err, sweep.ErrSharded) {
				sharded = err // a shard runs its points of every topology before it stops
				fig10Runs.Lock()
				fig10Runs.sharded[shardKey] = true
				fig10Runs.Unlock()
				continue
			} else if err != nil {
				return nil, err
			}
			fig10Runs.Lock()
			fig10Runs.points[key] = got
			fig10Runs.Unlock()
		}
		pts = append(pts, got...)
	}
	if sharded != nil {
		return nil, sharded
	}
	slices.SortStableFunc(pts, func(a, b sweep.PointResult) int {
		return slices.Index(def.Workloads, a.Workload) - slices.Index(def.Workloads, b.Workload)
	})
	return pts, nil
}

// fig11Of is Fig. 11's study on topos under e, from fig10Points.
func fig11Of(e Env, topos []string) (*reproduce.Fig11Result, error) {
	pts, err := fig10Points(e, topos)
	if err != nil {
		return nil, err
	}
	return reproduce.Fig11Of(pts, reproduce.DefaultFig11().Workloads)
}

// keep is where a figure's runs that are not training runs keep their
// points under e: DIR/sweep when e has a directory, in e's shard.
func (e Env) keep() reproduce.Keep {
	k := reproduce.Keep{Shard: e.Shard, Ran: e.Ran}
	if e.Dir != "" {
		k.Dir = filepath.Join(e.Dir, "sweep")
	}
	return k
}
