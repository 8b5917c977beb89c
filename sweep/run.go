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
	"github.com/acemu/acemu/internal/buildinfo"
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
	// Build is the build recorded in Dir (zero: this binary's,
	// buildinfo.This); a Dir begun by another build is refused.
	Build buildinfo.Build
}

// Outcome is what a run did: the shard's points in index order, how
// many ran now and how many were found in Dir, and the build that ran
// them.
type Outcome struct {
	Points    []PointResult
	Ran, Kept int
	Build     buildinfo.Build
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
	if o.Build == (buildinfo.Build{}) {
		o.Build = buildinfo.This()
	}
	out := &Outcome{Build: o.Build}
	if o.Dir != "" {
		unlock, err := lockDir(o.Dir)
		if err != nil {
			return nil, err
		}
		defer unlock()
		kept, err := openDir(o.Dir, s, o.Shard, o.Build)
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
		if got[j], err = keep(o.Dir, p, s, fp, o.Build); err != nil {
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
// as build b's, and returns it as read back and verified: a sweep's
// results are always what its files say, so a merge of shards gives
// exactly what one run gives.
func keep(dir string, p PointResult, s *Spec, fp string, b buildinfo.Build) (*PointResult, error) {
	rec, err := encodePoint(p, b)
	if err != nil {
		return nil, err
	}
	name := filepath.Join(dir, pointsDir, pointFile(p.Index))
	if dir != "" {
		if err := outfile.Write(name, rec); err != nil {
			return nil, err
		}
	}
	return decodePoint(name, rec, s, fp, b, "this acemu wrote a point it cannot read back; report it with the sweep's command")
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

// openDir makes dir ready for the sweep's shard run by build b, or
// refuses a directory that holds another sweep or shard or was begun by
// another build, and returns the points it holds, verified.
func openDir(dir string, s *Spec, sh Shard, b buildinfo.Build) (map[int]*PointResult, error) {
	if err := os.MkdirAll(filepath.Join(dir, pointsDir), 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	path := filepath.Join(dir, SweepFile)
	want, err := json.MarshalIndent(storedSweep{storeSchema, b, sh.String(), s}, "", "  ")
	if err != nil {
		return nil, err
	}
	if old, err := limited.ReadFile(path, maxRecord, "not a sweep's sweep.json"); err == nil {
		d, err := readSweep(dir, old, "run the sweep into another directory, or remove this one to start again")
		if err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
		rec := dirRecord{dir, d.Shard, d.Build}
		if err := rec.resume(SweepFile, bytes.Equal(d.Spec.encode(), s.encode()), "settings, axes, lists or a workload file's content", sh, b); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--out: %w", err)
	} else if err := outfile.Write(path, append(want, '\n')); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	kept, err := readPoints(dir, s, b, true, "delete the file and run the same command again to run that point again")
	if err != nil {
		return nil, err
	}
	return kept, inShard(dir, kept, sh)
}

// inShard refuses points kept in dir (by index) that are not shard sh's.
func inShard[V any](dir string, kept map[int]V, sh Shard) error {
	for i := range kept {
		if !sh.has(i) {
			return fmt.Errorf("--out %s: point %d is not in shard %s", dir, i, sh)
		}
	}
	return nil
}

// dirRecord is what a sweep's directory records (in its SweepFile or
// KeptFile) of the run that began it: its shard and its build.
type dirRecord struct {
	dir   string
	shard string
	build buildinfo.Build
}

// resume refuses to run shard sh of a sweep by build b in the record's
// directory when it was begun for another sweep (same is false: its file
// differs; differs says what can), another shard or another build.
func (d dirRecord) resume(file string, same bool, differs string, sh Shard, b buildinfo.Build) error {
	switch {
	case !same:
		return fmt.Errorf("--out %s holds another sweep (its %s differs from this one's: %s); use another directory, or remove the whole directory to start again", d.dir, file, differs)
	case d.shard != sh.String():
		return fmt.Errorf("--out %s holds shard %s of this sweep, not %s; give each shard its own directory", d.dir, d.shard, sh)
	case !d.build.Same(b):
		return fmt.Errorf("--out %s was begun by %s, and this is %s: its points and this run's would be two builds' results in one table; finish it with that build, or give this one another directory", d.dir, d.build, b)
	}
	return nil
}

// shardMerge gathers the directories of a sweep's shards for a merge,
// refusing a directory of another sweep or build than the first, a shard
// given twice, a point held twice and, at the end, a point held by none.
type shardMerge struct {
	first  dirRecord
	shards map[string]string // shard: its directory
	from   map[int]string    // point: its directory
}

// add takes the shard of record d, whose sweep is the first's (same;
// true for the first).
func (m *shardMerge) add(d dirRecord, same bool) error {
	if m.shards == nil {
		m.first, m.shards, m.from = d, map[string]string{}, map[int]string{}
	} else if !same {
		return fmt.Errorf("merge: %s and %s hold different sweeps", m.first.dir, d.dir)
	} else if !d.build.Same(m.first.build) {
		return fmt.Errorf("merge: %s was run by %s, and %s by %s: a table of both would mix two builds' results; run one's shards again with the other's build (into new directories), then merge", m.first.dir, m.first.build, d.dir, d.build)
	}
	if other, ok := m.shards[d.shard]; ok {
		return fmt.Errorf("merge: %s and %s both hold shard %s", other, d.dir, d.shard)
	}
	m.shards[d.shard] = d.dir
	return nil
}

// point takes point i, held by dir.
func (m *shardMerge) point(i int, dir string) error {
	if other, ok := m.from[i]; ok {
		return fmt.Errorf("merge: point %d is in both %s and %s", i, other, dir)
	}
	m.from[i] = dir
	return nil
}

// complete refuses a merge that lacks any of the sweep's n points.
func (m *shardMerge) complete(n int) error {
	var missing []string
	for i := range n {
		if _, ok := m.from[i]; !ok && len(missing) < 10 {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if k := n - len(m.from); k > 0 {
		more := ""
		if k > len(missing) {
			more = ", ..."
		}
		return fmt.Errorf("merge: %d of %d points are missing (%s%s); run their shards to the end (the same command again finishes a shard) and merge again", k, n, strings.Join(missing, ", "), more)
	}
	return nil
}

// readPoints reads the points a directory of build b holds, verifying
// each (decodePoint; fix says what to do about one that fails).
// Temporary files (a point being written, or left by a run that stopped
// while writing) are not points: with clean, they are removed (the
// caller holds the directory's lock).
func readPoints(dir string, s *Spec, b buildinfo.Build, clean bool, fix string) (map[int]*PointResult, error) {
	kept := map[int]*PointResult{}
	fp := s.fingerprint()
	err := eachPointFile(dir, clean, fix, func(name string, rec []byte) error {
		p, err := decodePoint(name, rec, s, fp, b, fix)
		if err != nil {
			return err
		}
		kept[p.Index] = p
		return nil
	})
	return kept, err
}

// eachPointFile calls f with each point file's name and content in dir's
// points/ (fix: what to do about one that cannot be read). Temporary
// files (a point being written, or left by a run that stopped while
// writing) are not points: with clean, they are removed (the caller
// holds the directory's lock).
func eachPointFile(dir string, clean bool, fix string, f func(name string, rec []byte) error) error {
	ents, err := os.ReadDir(filepath.Join(dir, pointsDir))
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	for _, e := range ents {
		name := filepath.Join(dir, pointsDir, e.Name())
		if strings.HasSuffix(e.Name(), outfile.TempSuffix) {
			if clean {
				if err := os.Remove(name); err != nil {
					return err
				}
			}
			continue
		}
		rec, err := limited.ReadFile(name, maxRecord, "not a point's result")
		if err != nil {
			return fmt.Errorf("%w; %s", err, fix)
		}
		if err := f(name, rec); err != nil {
			return err
		}
	}
	return nil
}

// Merged is a sweep read back from its shards' directories: the sweep,
// its points in index order, and the build that ran them.
type Merged struct {
	Spec   *Spec
	Points []PointResult
	Build  buildinfo.Build
}

// Merge reads the directories of a sweep's shards (or of a whole sweep),
// checks they hold one sweep, run by one build, and, together, every
// point of it once, each verified, and returns the sweep and its points.
func Merge(dirs []string) (*Merged, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("merge: name the directories of the shards (their --out)")
	}
	var spec *Spec
	var encoded []byte // spec's canonical JSON
	var m shardMerge
	all := map[int]*PointResult{}
	for _, dir := range dirs {
		b, err := limited.ReadFile(filepath.Join(dir, SweepFile), maxRecord, "not a sweep's sweep.json")
		if err != nil {
			return nil, fmt.Errorf("merge: %s is not a sweep's --out directory: %w", dir, err)
		}
		d, err := readSweep(dir, b, "run its shard again into a new directory (the same command with another --out), then merge")
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if spec == nil {
			if err := d.Spec.check(); err != nil {
				return nil, fmt.Errorf("merge: %s/sweep.json: %w (edited, or from another version of acemu?)", dir, err)
			}
			spec, encoded = d.Spec, d.Spec.encode()
		}
		// The first is checked; the others must be the same sweep.
		if err := m.add(dirRecord{dir, d.Shard, d.Build}, bytes.Equal(encoded, d.Spec.encode())); err != nil {
			return nil, err
		}
		pts, err := readPoints(dir, spec, d.Build, false, "delete the file and run its shard again (the same command finishes it), then merge again")
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		for _, i := range slices.Sorted(maps.Keys(pts)) {
			if err := m.point(i, dir); err != nil {
				return nil, err
			}
			all[i] = pts[i]
		}
	}
	if err := m.complete(spec.Len()); err != nil {
		return nil, err
	}
	out := make([]PointResult, spec.Len())
	for i := range out {
		out[i] = *all[i]
	}
	return &Merged{Spec: spec, Points: out, Build: m.first.build}, nil
}
