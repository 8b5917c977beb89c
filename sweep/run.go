package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/limited"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/internal/par"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/units"
	"github.com/acemu/acemu/workload"
)

// Shard is the slice of a sweep one job runs: the points whose index
// modulo N is I (I from 0 to N−1). The zero Shard is the whole sweep.
type Shard struct{ I, N int }

// ParseShard reads "i/n".
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err := shardNumber(a)
	n, err2 := shardNumber(b)
	if err == nil {
		err = err2
	}
	if !ok || err != nil {
		why := ""
		if ok {
			why = fmt.Sprintf(" (%v)", err)
		}
		return Shard{}, fmt.Errorf("--shard %q: give i/n, the shard's index from 0 and the number of shards (e.g. --shard $SLURM_ARRAY_TASK_ID/4)%s", s, why)
	}
	if n < 1 || n > MaxPoints {
		return Shard{}, fmt.Errorf("--shard %s: the number of shards must be 1 to %d", s, MaxPoints)
	}
	if i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %s: the index must be 0 to %d for %d shards (indices count from 0, as $SLURM_ARRAY_TASK_ID with --array=0-%d and $JOB_COMPLETION_INDEX do)", s, n-1, n, n-1)
	}
	return Shard{int(i), int(n)}, nil
}

// shardNumber reads one number of --shard i/n (units.ParseInt); one beyond
// int64 is read as the largest, which the range checks refuse.
func shardNumber(s string) (int64, error) {
	v, err := units.ParseInt(s)
	if errors.Is(err, strconv.ErrRange) {
		return math.MaxInt64, nil
	}
	return v, err
}

// String writes the shard as i/n, or "all".
func (sh Shard) String() string {
	if sh.N == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", sh.I, sh.N)
}

// has reports whether point i is in the shard.
func (sh Shard) has(i int) bool { return sh.N == 0 || i%sh.N == sh.I }

// PointResult is one point's comparator run, as kept on disk.
type PointResult struct {
	// Sweep is the fingerprint (SHA-256) of the sweep the point belongs to.
	Sweep    string   `json:"sweep"`
	Index    int      `json:"index"`
	Values   []string `json:"values"`
	Workload string   `json:"workload"`
	Topology string   `json:"topology"`
	// Folded is whether one NPU stood for all (compare.WhyNotFold).
	Folded  bool                   `json:"folded"`
	Systems []compare.SystemResult `json:"systems"`
	// SpeedupOfACE is, per other system, its time over ACE's.
	SpeedupOfACE map[string]float64 `json:"speedup_of_ace,omitempty"`
}

// Options say how a sweep runs.
type Options struct {
	// Workers is how many points run at once (0: GOMAXPROCS).
	Workers int
	Shard   Shard
	// Dir, if set, keeps the sweep (sweep.json) and each finished point
	// (points/NNNNNN.json); points found there are not run again.
	Dir string
	// Progress, if set, is told how many of the shard's points are done.
	Progress func(done, total int)
	// Ran, if set, is called with each point's index as it starts running.
	Ran func(i int)
}

// Outcome is what a run did: the shard's points in index order, and how
// many ran now and how many were found in Dir.
type Outcome struct {
	Points    []PointResult
	Ran, Kept int
}

// Run runs the shard's points that Dir does not hold yet, in parallel,
// and returns all the shard's points. When ctx is cancelled no new point
// starts; Run returns what finished (kept in Dir) and ctx's error.
func Run(ctx context.Context, s *Spec, o Options) (*Outcome, error) {
	var idx []int
	for i := 0; i < s.Len(); i++ {
		if o.Shard.has(i) {
			idx = append(idx, i)
		}
	}
	got := make([]*PointResult, len(idx))
	out := &Outcome{}
	if o.Dir != "" {
		unlock, err := lockDir(o.Dir)
		if err != nil {
			return nil, err
		}
		defer unlock()
		kept, err := openDir(o.Dir, s, o.Shard)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			if p, ok := kept[i]; ok {
				got[j] = p
				out.Kept++
			}
		}
	}
	wls := map[string]*workload.Workload{}
	for _, n := range s.Workloads {
		w := s.loaded[n] // read by New
		if w == nil {
			var err error
			if w, err = workload.Load(n); err != nil {
				return nil, fmt.Errorf("--workload: %w", err)
			}
		}
		wls[n] = w
	}
	var todo []int
	for j := range idx {
		if got[j] == nil {
			todo = append(todo, j)
		}
	}
	done := out.Kept
	progress := func(int, int) {}
	if o.Progress != nil {
		o.Progress(done, len(idx))
		progress = func(d, _ int) { o.Progress(done+d, len(idx)) }
	}
	fp := s.fingerprint()
	if k, err := par.DoReport(len(todo), o.Workers, func(k int) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		j := todo[k]
		if o.Ran != nil {
			o.Ran(idx[j])
		}
		p, err := s.run(s.Point(idx[j]), fp, wls)
		if err != nil {
			return err
		}
		if got[j], err = keep(o.Dir, p); err != nil {
			return err
		}
		return nil
	}, progress); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		} else {
			pt := s.Point(idx[todo[k]])
			err = fmt.Errorf("point %d (%s, %s on %s): %w", pt.Index, describe(s.Axes, pt.Values), pt.Workload, pt.Topology, err)
		}
		for _, p := range got {
			if p != nil {
				out.Points = append(out.Points, *p)
			}
		}
		return out, err
	}
	out.Ran = len(todo)
	for _, p := range got {
		out.Points = append(out.Points, *p)
	}
	return out, nil
}

// run runs one point of the sweep of fingerprint fp: the comparator on the
// point's platform, one system after another.
func (s *Spec) run(pt Point, fp string, wls map[string]*workload.Workload) (PointResult, error) {
	r := PointResult{Sweep: fp, Index: pt.Index, Values: pt.Values, Workload: pt.Workload, Topology: pt.Topology}
	p, err := s.Platform(pt.Values)
	if err != nil {
		return r, err
	}
	o, err := compare.PlatformOptions(p)
	if err != nil {
		return r, err
	}
	m, err := topology.Parse(pt.Topology)
	if err != nil {
		return r, err
	}
	o.Machine = m
	if o.Systems, err = compare.PlatformSystems(s.Systems, p); err != nil {
		return r, err
	}
	o.Workload, o.Workers = wls[pt.Workload], 1
	if slices.Contains(workload.BuiltinNames(), pt.Workload) { // in the point's compute regime
		if o.Workload, err = compare.PlatformWorkload(p, pt.Workload); err != nil {
			return r, err
		}
	}
	rep, err := compare.Run(o)
	if err != nil {
		return r, err
	}
	r.Folded, r.Systems, r.SpeedupOfACE = rep.Folded, rep.Systems, rep.SpeedupOfACE
	return r, nil
}

// keep writes a point's result into dir (when set), whole or not at all,
// and returns it as read back: a sweep's results are always what its
// files say, so a merge of shards gives exactly what one run gives.
func keep(dir string, p PointResult) (*PointResult, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("point %d: %w", p.Index, err)
	}
	if dir != "" {
		if err := outfile.Write(filepath.Join(dir, "points", pointFile(p.Index)), b); err != nil {
			return nil, err
		}
	}
	var back PointResult
	if err := json.Unmarshal(b, &back); err != nil {
		return nil, fmt.Errorf("point %d: %w", p.Index, err)
	}
	return &back, nil
}

func pointFile(i int) string { return fmt.Sprintf("%06d.json", i) }

// maxRecord bounds sweep.json and a point's file: both are a few KB (a
// sweep of the largest axes, MaxPoints values, some MB).
const maxRecord = 64 << 20

// lockDir takes dir's lock (DIR/.lock, flock) for one run: two runs in one
// directory (a requeued task beside its first, two pods of one index)
// would write the same points.
func lockDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("--out %s: another acemu sweep is running in it (%v); wait for it, or give this one another directory", dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// dirSweep is a directory's sweep.json: the sweep and the shard it holds.
type dirSweep struct {
	Shard string `json:"shard"`
	Spec  *Spec  `json:"sweep"`
}

// openDir makes dir ready for the sweep's shard, or refuses a directory
// that holds another sweep or shard, and returns the points it holds.
func openDir(dir string, s *Spec, sh Shard) (map[int]*PointResult, error) {
	if err := os.MkdirAll(filepath.Join(dir, "points"), 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	path := filepath.Join(dir, "sweep.json")
	want, err := json.MarshalIndent(dirSweep{sh.String(), s}, "", "  ")
	if err != nil {
		return nil, err
	}
	if old, err := limited.ReadFile(path, maxRecord, "not a sweep's sweep.json"); err == nil {
		var d dirSweep
		if err := json.Unmarshal(old, &d); err != nil || d.Spec == nil {
			return nil, fmt.Errorf("--out %s: sweep.json is not a sweep's (%v); use another directory", dir, err)
		}
		if !bytes.Equal(d.Spec.encode(), s.encode()) {
			return nil, fmt.Errorf("--out %s holds another sweep (its sweep.json differs from this one's: settings, axes, lists or a workload file's content); use another directory, or remove the whole directory to start again", dir)
		}
		if d.Shard != sh.String() {
			return nil, fmt.Errorf("--out %s holds shard %s of this sweep, not %s; give each shard its own directory", dir, d.Shard, sh)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--out: %w", err)
	} else if err := outfile.Write(path, append(want, '\n')); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	kept, err := readPoints(dir, s, true)
	if err != nil {
		return nil, err
	}
	for i := range kept {
		if !sh.has(i) {
			return nil, fmt.Errorf("--out %s: point %d is not in shard %s", dir, i, sh)
		}
	}
	return kept, nil
}

// readPoints reads the points a directory holds, checking each is the
// sweep's point of its index. Temporary files (a point being written, or
// left by a run that stopped while writing) are not points: with clean,
// they are removed (the caller holds the directory's lock).
func readPoints(dir string, s *Spec, clean bool) (map[int]*PointResult, error) {
	ents, err := os.ReadDir(filepath.Join(dir, "points"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	kept := map[int]*PointResult{}
	fp := s.fingerprint()
	for _, e := range ents {
		name := filepath.Join(dir, "points", e.Name())
		if strings.HasSuffix(e.Name(), outfile.TempSuffix) {
			if clean {
				if err := os.Remove(name); err != nil {
					return nil, err
				}
			}
			continue
		}
		b, err := limited.ReadFile(name, maxRecord, "not a point's result")
		if err != nil {
			return nil, err
		}
		var p PointResult
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("%s: not a point's result (%v); remove it to run the point again", name, err)
		}
		if p.Index < 0 || p.Index >= s.Len() || e.Name() != pointFile(p.Index) {
			return nil, fmt.Errorf("%s: index %d is not this file's point of the sweep's %d; remove it to run the point again", name, p.Index, s.Len())
		}
		pt := s.Point(p.Index)
		if p.Sweep != fp || strings.Join(p.Values, "\x00") != strings.Join(pt.Values, "\x00") || p.Workload != pt.Workload || p.Topology != pt.Topology || len(p.Systems) != len(s.Systems) {
			return nil, fmt.Errorf("%s: not the sweep's point %d; remove it to run the point again", name, p.Index)
		}
		kept[p.Index] = &p
	}
	return kept, nil
}

// Merge reads the directories of a sweep's shards (or of a whole sweep),
// checks they hold one sweep and, together, every point of it once, and
// returns the sweep and its points in index order.
func Merge(dirs []string) (*Spec, []PointResult, error) {
	if len(dirs) == 0 {
		return nil, nil, fmt.Errorf("merge: name the directories of the shards (their --out)")
	}
	var spec *Spec
	var first string
	var encoded []byte // spec's canonical JSON
	all := map[int]*PointResult{}
	from := map[int]string{}
	shards := map[string]string{}
	for _, dir := range dirs {
		b, err := limited.ReadFile(filepath.Join(dir, "sweep.json"), maxRecord, "not a sweep's sweep.json")
		if err != nil {
			return nil, nil, fmt.Errorf("merge: %s is not a sweep's --out directory: %w", dir, err)
		}
		var d dirSweep
		if err := json.Unmarshal(b, &d); err != nil || d.Spec == nil {
			return nil, nil, fmt.Errorf("merge: %s/sweep.json is not a sweep's (%v)", dir, err)
		}
		if spec == nil {
			if err := d.Spec.check(); err != nil {
				return nil, nil, fmt.Errorf("merge: %s/sweep.json: %w (edited, or from another version of acemu?)", dir, err)
			}
			spec, first, encoded = d.Spec, dir, d.Spec.encode()
		} else if !bytes.Equal(encoded, d.Spec.encode()) { // the same as the first, which is checked
			return nil, nil, fmt.Errorf("merge: %s and %s hold different sweeps", first, dir)
		}
		if other, ok := shards[d.Shard]; ok {
			return nil, nil, fmt.Errorf("merge: %s and %s both hold shard %s", other, dir, d.Shard)
		}
		shards[d.Shard] = dir
		pts, err := readPoints(dir, spec, false)
		if err != nil {
			return nil, nil, fmt.Errorf("merge: %w", err)
		}
		for _, i := range slices.Sorted(maps.Keys(pts)) {
			p := pts[i]
			if other, ok := from[i]; ok {
				return nil, nil, fmt.Errorf("merge: point %d is in both %s and %s", i, other, dir)
			}
			all[i], from[i] = p, dir
		}
	}
	var missing []string
	out := make([]PointResult, 0, spec.Len())
	for i := 0; i < spec.Len(); i++ {
		p, ok := all[i]
		if !ok {
			if len(missing) < 10 {
				missing = append(missing, strconv.Itoa(i))
			}
			continue
		}
		out = append(out, *p)
	}
	if n := spec.Len() - len(out); n > 0 {
		return nil, nil, fmt.Errorf("merge: %d of %d points are missing (%s%s); run their shards to the end (the same command again finishes a shard) and merge again",
			n, spec.Len(), strings.Join(missing, ", "), map[bool]string{true: ", ...", false: ""}[n > len(missing)])
	}
	return spec, out, nil
}
