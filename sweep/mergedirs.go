package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/acemu/acemu/internal/outfile"
)

// MergeDirs merges the shards of a command that runs several sweeps, each
// shard's --out a directory tree holding the sweeps (a directory with a
// sweep.json, the comparator's, or a kept.json, RunKept's) at the same
// places: each sweep is merged (Merge, or its kept points' checks) into
// the same place under out, as the unsharded run would have written it,
// so that the command run again with --out out runs nothing. It returns
// the places merged, relative to out.
func MergeDirs(dirs []string, out string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("merge: name the directories of the shards (their --out)")
	}
	if err := CheckMergeOut(out, dirs); err != nil {
		return nil, err
	}
	places := map[string]string{} // relative place: its kind's file
	for i, d := range dirs {
		found, err := sweepsUnder(d)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("merge: %s holds no sweep (no sweep.json or %s under it); name the shards' --out directories", d, KeptFile)
		}
		if i == 0 {
			places = found
			continue
		}
		for rel := range found {
			if _, ok := places[rel]; !ok {
				return nil, fmt.Errorf("merge: %s holds a sweep at %s, which %s does not: they are shards of different commands", d, rel, dirs[0])
			}
		}
		for rel := range places {
			if _, ok := found[rel]; !ok {
				return nil, fmt.Errorf("merge: %s holds a sweep at %s, which %s does not: they are shards of different commands, or one stopped before it began that sweep (run it again to finish it)", dirs[0], rel, d)
			}
		}
	}
	var rels []string
	for rel := range places {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	for _, rel := range rels {
		// A sweep already at its place would be overwritten under the
		// results written beside it: the merge needs a directory of its own.
		for _, f := range []string{SweepFile, KeptFile} {
			if _, err := os.Stat(filepath.Join(out, rel, f)); err == nil {
				return nil, fmt.Errorf("merge: --out %s already holds a sweep at %s (its %s): a run's --out, or an earlier merge; merge into a new directory", out, rel, f)
			}
		}
	}
	for _, rel := range rels {
		sub := make([]string, len(dirs))
		for i, d := range dirs {
			sub[i] = filepath.Join(d, rel)
		}
		dst := filepath.Join(out, rel)
		var err error
		if places[rel] == KeptFile {
			err = mergeKept(sub, dst)
		} else {
			err = mergeSweep(sub, dst)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
	}
	return rels, nil
}

// sweepsUnder finds the sweeps under dir: the directories holding a
// sweep.json or a kept.json, relative to dir, each with its file's name.
func sweepsUnder(dir string) (map[string]string, error) {
	found := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if e.Name() == pointsDir && isSweepDir(filepath.Dir(path)) {
				return fs.SkipDir // a sweep's points, thousands of files: no sweep under them
			}
			return nil
		}
		if e.Name() != SweepFile && e.Name() != KeptFile {
			return nil
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		if _, ok := found[rel]; ok {
			return fmt.Errorf("merge: %s holds both a sweep.json and a %s", filepath.Dir(path), KeptFile)
		}
		found[rel] = e.Name()
		return nil
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("merge: %w", err)
		}
		return nil, err
	}
	return found, nil
}

// isSweepDir says whether dir holds a sweep's or kept points'
// description file.
func isSweepDir(dir string) bool {
	for _, name := range []string{SweepFile, KeptFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// mergeSweep merges a comparator sweep's shards in dirs (Merge) into out,
// as the unsharded run writes its directory: sweep.json and every point.
func mergeSweep(dirs []string, out string) error {
	m, err := Merge(dirs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, pointsDir), 0o755); err != nil {
		return fmt.Errorf("merge: --out: %w", err)
	}
	for _, p := range m.Points {
		rec, err := encodePoint(p, m.Build)
		if err != nil {
			return err
		}
		if err := outfile.Write(filepath.Join(out, pointsDir, pointFile(p.Index)), rec); err != nil {
			return fmt.Errorf("merge: --out: %w", err)
		}
	}
	rec, err := json.MarshalIndent(storedSweep{storeSchema, m.Build, Shard{}.String(), m.Spec}, "", "  ")
	if err != nil {
		return err
	}
	return outfile.Write(filepath.Join(out, SweepFile), append(rec, '\n'))
}
