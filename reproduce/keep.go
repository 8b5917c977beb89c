package reproduce

import (
	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/sweep"
)

// Keep says where a figure's runs keep their points, as an acemu sweep
// keeps its own (docs/sweeps.md, "Running it"): each finished run in
// Dir, so that the figure run again there runs only the missing ones,
// and with a Shard only the shard's runs (sweep.RunKept).
type Keep struct {
	// Dir, if set, is the directory of the figure's runs.
	Dir   string
	Shard sweep.Shard
	// Ran, if set, is told of each run as it starts (its index).
	Ran func(i int)
}

// keptSpec is a spec as the description of a kept sweep records it: with
// the ACE design point and the links a run takes.
type keptSpec struct {
	Spec  Spec              `json:"spec"`
	ACE   ace.Config        `json:"ace"`
	Links map[string]string `json:"links,omitempty"`
}

// RunKept is Run with the runs kept as k says: specs as a sweep of
// their own, each spec a point.
func RunKept(specs []Spec, workers int, progress func(done, total int), k Keep) ([]Point, error) {
	desc := make([]keptSpec, len(specs))
	for i, s := range specs {
		desc[i] = keptSpec{s, s.ACE, s.Links}
	}
	pts, err := kept(k, "lone collectives", desc, len(specs), workers, progress, func(i int) (Point, error) {
		p, err := one(specs[i])
		return p, wrapSpec(specs[i], err)
	})
	for i := range pts {
		pts[i].Spec = specs[i] // its runtime-only fields, which its record leaves out
	}
	return pts, err
}

// kept runs n points, point i by run(i), up to workers at once, as
// sweep.RunKept does (a sweep of kind and description desc, kept in k.Dir
// when it is set), so a point is the same read back from a directory or
// not.
func kept[T any](k Keep, kind string, desc any, n, workers int, progress func(done, total int), run func(i int) (T, error)) ([]T, error) {
	return sweep.RunKept(kind, desc, n, sweep.Options{Workers: workers, Shard: k.Shard, Dir: k.Dir, Progress: progress, Ran: k.Ran}, run)
}
