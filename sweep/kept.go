package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/acemu/acemu/internal/buildinfo"
	"github.com/acemu/acemu/internal/limited"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/internal/par"
)

// SweepFile is the description file of a comparator sweep's directory:
// the build that began it, the shard it holds and the sweep.
const SweepFile = "sweep.json"

// KeptFile is the description file of a directory of kept points: a
// sweep whose points are not the comparator's runs (a figure's lone
// collectives), kept as a sweep's are (docs/sweeps.md, "Running it").
const KeptFile = "kept.json"

// pointsDir is where, beside its description file, a sweep keeps its
// points: one file each.
const pointsDir = "points"

// ErrSharded is what a run of one shard of a sweep returns once its
// points are done: the sweep's results need every shard's points
// (MergeDirs, then the command again without --shard).
var ErrSharded = errors.New("this shard's points are done; merge the shards' directories and run the command again on the merge to get the results")

// storedKept is a directory's kept.json: the build that began it, the
// shard it holds, what the points are (Kind) and the sweep's description,
// whose SHA-256 each point records.
type storedKept struct {
	recordHead
	Shard  string          `json:"shard"`
	Kind   string          `json:"kind"`
	Points int             `json:"points"`
	Sweep  json.RawMessage `json:"sweep"`
}

// keptPoint is a point's file: its version, the build that ran it, the
// SHA-256 of the sweep's description, its index, the point, and the
// SHA-256 of the record's canonical JSON without that field.
type keptPoint struct {
	recordHead
	SHA256 string          `json:"sha256,omitempty"`
	Sweep  string          `json:"sweep"`
	Index  int             `json:"index"`
	Point  json.RawMessage `json:"point"`
}

func (r keptPoint) contentHash() (string, error) {
	r.SHA256 = ""
	return sha256JSON(r)
}

// recordHead is what begins each of a kept sweep's records: its version
// and the build that wrote it.
type recordHead struct {
	Schema int             `json:"schema"`
	Build  buildinfo.Build `json:"build"`
}

// keptSweep is a sweep of kept points: its description and where it is.
type keptSweep struct {
	kind  string
	n     int
	desc  []byte // canonical JSON
	fp    string // its SHA-256
	build buildinfo.Build
}

func newKeptSweep(kind string, desc any, n int, b buildinfo.Build) (*keptSweep, error) {
	d, err := json.Marshal(desc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	return &keptSweep{kind: kind, n: n, desc: d, fp: fmt.Sprintf("%x", sha256.Sum256(d)), build: b}, nil
}

// encode is point i's file, its content p's JSON.
func (k *keptSweep) encode(i int, p []byte) ([]byte, error) {
	r := keptPoint{recordHead: recordHead{storeSchema, k.build}, Sweep: k.fp, Index: i, Point: p}
	var err error
	if r.SHA256, err = r.contentHash(); err != nil {
		return nil, err
	}
	return json.Marshal(r)
}

// decode reads point file name (content b) and verifies it: its version,
// its build (the directory's), that it is this sweep's point of its
// file's index, and its SHA-256; it returns the point's JSON.
func (k *keptSweep) decode(name string, b []byte, fix string) (int, json.RawMessage, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %s; %s", name, fmt.Sprintf(format, a...), fix)
	}
	v, err := schemaOf(b)
	if err != nil {
		return 0, nil, bad("not a point's result (%v)", err)
	}
	if v != storeSchema {
		return 0, nil, bad("%s", olderSchema(v))
	}
	var r keptPoint
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return 0, nil, bad("not a point's result (%v)", err)
	}
	switch {
	case !r.Build.Same(k.build):
		return 0, nil, bad("written by %s, but its directory's %s by %s", r.Build, KeptFile, k.build)
	case r.Index < 0 || r.Index >= k.n || filepath.Base(name) != pointFile(r.Index):
		return 0, nil, bad("index %d is not this file's point of the sweep's %d", r.Index, k.n)
	case r.Sweep != k.fp:
		return 0, nil, bad("not the sweep's point %d (of another sweep)", r.Index)
	}
	d, err := r.contentHash()
	if err != nil {
		return 0, nil, bad("%v", err)
	}
	if r.SHA256 != d {
		return 0, nil, bad("its content does not match its SHA-256 (edited or damaged since it was written: recorded %.12s, content %.12s)", r.SHA256, d)
	}
	return r.Index, r.Point, nil
}

// record is the directory's kept.json for shard sh.
func (k *keptSweep) record(sh Shard) ([]byte, error) {
	b, err := json.MarshalIndent(storedKept{recordHead{storeSchema, k.build}, sh.String(), k.kind, k.n, k.desc}, "", "  ")
	return append(b, '\n'), err
}

// readKept reads dir's kept.json, refusing one of another version.
func readKept(dir, fix string) (storedKept, error) {
	var d storedKept
	path := filepath.Join(dir, KeptFile)
	b, err := limited.ReadFile(path, maxRecord, "not a kept sweep's "+KeptFile)
	if err != nil {
		return d, err
	}
	v, err := schemaOf(b)
	if err == nil && v != storeSchema {
		return d, fmt.Errorf("%s: %s; %s", path, olderSchema(v), fix)
	}
	if err == nil {
		err = json.Unmarshal(b, &d)
	}
	if err != nil || len(d.Sweep) == 0 || d.Points < 1 || d.Points > MaxPoints {
		if err == nil {
			err = errors.New("no sweep, or no points")
		}
		return d, fmt.Errorf("%s is not a kept sweep's (%v); %s", path, err, fix)
	}
	return d, nil
}

// open makes dir ready for shard sh of the sweep, or refuses a directory
// that holds another sweep or shard or was begun by another build, and
// returns the points it holds, verified, by index.
func (k *keptSweep) open(dir string, sh Shard) (map[int]json.RawMessage, error) {
	if err := os.MkdirAll(filepath.Join(dir, pointsDir), 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	fix := "run into another directory, or remove this one to start again"
	if d, err := readKept(dir, fix); err == nil {
		var want bytes.Buffer
		same := json.Compact(&want, d.Sweep) == nil && bytes.Equal(want.Bytes(), k.desc) && d.Kind == k.kind && d.Points == k.n
		if err := (dirRecord{dir, d.Shard, d.Build}).resume(KeptFile, same, "another figure, setting or list", sh, k.build); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--out: %w", err)
	} else {
		rec, err := k.record(sh)
		if err != nil {
			return nil, err
		}
		if err := outfile.Write(filepath.Join(dir, KeptFile), rec); err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
	}
	kept, err := k.readPoints(dir, true, "delete the file and run the same command again to run that point again")
	if err != nil {
		return nil, err
	}
	return kept, inShard(dir, kept, sh)
}

// readPoints reads and verifies the points dir holds (eachPointFile).
func (k *keptSweep) readPoints(dir string, clean bool, fix string) (map[int]json.RawMessage, error) {
	kept := map[int]json.RawMessage{}
	err := eachPointFile(dir, clean, fix, func(name string, rec []byte) error {
		i, p, err := k.decode(name, rec, fix)
		kept[i] = p
		return err
	})
	return kept, err
}

// RunKept runs the n points of a sweep that are not comparator runs,
// point i by run(i), in parallel, and returns them in index order. kind
// names what the points are and desc (any JSON value) is everything that
// makes the sweep this sweep; both are recorded in o.Dir beside each
// finished point, so that the same sweep run again there runs only the
// points not yet kept, and any other sweep is refused. Every point is
// returned as read back from its record, so a merge of shards gives what
// one run gives. With a shard of more than one, RunKept runs the shard's
// points and returns ErrSharded.
func RunKept[T any](kind string, desc any, n int, o Options, run func(i int) (T, error)) ([]T, error) {
	if n < 1 || n > MaxPoints {
		return nil, fmt.Errorf("%s: %d points; a sweep has 1 to %d", kind, n, MaxPoints)
	}
	if o.Build == (buildinfo.Build{}) {
		o.Build = buildinfo.This()
	}
	if o.Shard.N > 1 && o.Dir == "" {
		return nil, fmt.Errorf("%s: --shard needs --out: a shard's points are kept for the merge", kind)
	}
	k, err := newKeptSweep(kind, desc, n, o.Build)
	if err != nil {
		return nil, err
	}
	out := make([]T, n)
	have := make([]bool, n)
	read := func(i int, raw json.RawMessage) error {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&out[i]); err != nil {
			return fmt.Errorf("%s: point %d: %w", kind, i, err)
		}
		have[i] = true
		return nil
	}
	if o.Dir != "" {
		unlock, err := lockDir(o.Dir)
		if err != nil {
			return nil, err
		}
		defer unlock()
		kept, err := k.open(o.Dir, o.Shard)
		if err != nil {
			return nil, err
		}
		for i, raw := range kept {
			if err := read(i, raw); err != nil {
				return nil, err
			}
		}
	}
	var todo []int
	total, done := 0, 0
	for i := range n {
		if o.Shard.has(i) {
			total++
			if have[i] {
				done++
			} else {
				todo = append(todo, i)
			}
		}
	}
	progress := func(int, int) {}
	if o.Progress != nil {
		o.Progress(done, total)
		progress = func(d, _ int) { o.Progress(done+d, total) }
	}
	if j, err := par.DoReport(len(todo), o.Workers, func(j int) error {
		i := todo[j]
		if o.Ran != nil {
			o.Ran(i)
		}
		p, err := run(i)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(p)
		if err != nil {
			return err
		}
		rec, err := k.encode(i, raw)
		if err != nil {
			return err
		}
		name := filepath.Join(o.Dir, pointsDir, pointFile(i))
		if o.Dir != "" {
			if err := outfile.Write(name, rec); err != nil {
				return err
			}
		}
		_, back, err := k.decode(name, rec, "this acemu wrote a point it cannot read back; report it with the command")
		if err != nil {
			return err
		}
		return read(i, back)
	}, progress); err != nil {
		return nil, fmt.Errorf("point %d: %w", todo[j], err)
	}
	if o.Shard.N > 1 {
		return nil, ErrSharded
	}
	return out, nil
}

// mergeKept merges the kept sweep's shards in dirs into out: it checks
// they hold one sweep, run by one build, and together every point once,
// each verified, and writes out as the unsharded run would have.
func mergeKept(dirs []string, out string) error {
	var k *keptSweep
	var m shardMerge
	all := map[int][]byte{}
	fix := "run its shard again into a new directory (the same command with another --out), then merge"
	for _, dir := range dirs {
		d, err := readKept(dir, fix)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		var desc bytes.Buffer
		if err := json.Compact(&desc, d.Sweep); err != nil {
			return fmt.Errorf("merge: %s: %w", filepath.Join(dir, KeptFile), err)
		}
		if k == nil {
			if k, err = newKeptSweep(d.Kind, json.RawMessage(desc.Bytes()), d.Points, d.Build); err != nil {
				return err
			}
		}
		same := d.Kind == k.kind && d.Points == k.n && bytes.Equal(desc.Bytes(), k.desc)
		if err := m.add(dirRecord{dir, d.Shard, d.Build}, same); err != nil {
			return err
		}
		pts, err := k.readPoints(dir, false, "delete the file and run its shard again (the same command finishes it), then merge again")
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		for _, i := range slices.Sorted(maps.Keys(pts)) {
			if err := m.point(i, dir); err != nil {
				return err
			}
			if all[i], err = k.encode(i, pts[i]); err != nil {
				return err
			}
		}
	}
	if err := m.complete(k.n); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, pointsDir), 0o755); err != nil {
		return fmt.Errorf("merge: --out: %w", err)
	}
	rec, err := k.record(Shard{})
	if err != nil {
		return err
	}
	for i := range k.n {
		if err := outfile.Write(filepath.Join(out, pointsDir, pointFile(i)), all[i]); err != nil {
			return fmt.Errorf("merge: --out: %w", err)
		}
	}
	return outfile.Write(filepath.Join(out, KeptFile), rec)
}
