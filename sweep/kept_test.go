package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/internal/buildinfo"
)

// keptRow is a point of a kept sweep in these tests: a number and its
// square, which the tests compute by hand.
type keptRow struct {
	N      int   `json:"n"`
	Square int64 `json:"square"`
}

// runSquares runs the sweep of n points whose point i is i and i², into
// dir in shard sh, and counts the points run into ran.
func runSquares(dir string, sh Shard, n int, ran *atomic.Int64) ([]keptRow, error) {
	return RunKept("squares", map[string]int{"n": n}, n, Options{Dir: dir, Shard: sh, Workers: 2, Ran: func(int) { ran.Add(1) }},
		func(i int) (keptRow, error) { return keptRow{N: i, Square: int64(i) * int64(i)}, nil })
}

// A kept sweep run again in its directory runs nothing and gives the same
// points; its shards, merged, give a directory the whole sweep runs
// nothing in, with the same points.
func TestKeptSweepResumesAndMerges(t *testing.T) {
	want := []keptRow{{0, 0}, {1, 1}, {2, 4}, {3, 9}, {4, 16}} // i, i × i
	dir := t.TempDir()
	var ran atomic.Int64
	got, err := runSquares(filepath.Join(dir, "all"), Shard{}, 5, &ran)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.EqualValues(t, 5, ran.Load())
	got, err = runSquares(filepath.Join(dir, "all"), Shard{}, 5, &ran)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.EqualValues(t, 5, ran.Load(), "the second run runs nothing")

	// Shards 0/2 (points 0, 2, 4) and 1/2 (1, 3).
	ran.Store(0)
	for i := range 2 {
		_, err := runSquares(filepath.Join(dir, "shard", strings.Repeat("x", i+1)), Shard{i, 2}, 5, &ran)
		require.ErrorIs(t, err, ErrSharded)
	}
	require.EqualValues(t, 5, ran.Load())
	rels, err := MergeDirs([]string{filepath.Join(dir, "shard", "x"), filepath.Join(dir, "shard", "xx")}, filepath.Join(dir, "merged"))
	require.NoError(t, err)
	require.Equal(t, []string{"."}, rels)
	// Merged again into a directory that holds the sweep (the merge's, or
	// the whole run's), it is refused rather than overwritten.
	for _, out := range []string{"merged", "all"} {
		_, err = MergeDirs([]string{filepath.Join(dir, "shard", "x"), filepath.Join(dir, "shard", "xx")}, filepath.Join(dir, out))
		require.ErrorContains(t, err, "already holds a sweep at . (its kept.json)")
	}
	got, err = runSquares(filepath.Join(dir, "merged"), Shard{}, 5, &ran)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.EqualValues(t, 5, ran.Load(), "the merged directory holds every point")
	for i := range 5 {
		a, err := os.ReadFile(filepath.Join(dir, "all", "points", pointFile(i)))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dir, "merged", "points", pointFile(i)))
		require.NoError(t, err)
		require.Equal(t, string(a), string(b), "point %d", i)
	}
}

// What a kept sweep's directory holds is checked: another sweep, another
// shard, an edited point, a missing shard, a shard given twice.
func TestKeptSweepRefusesWhatIsNotItsOwn(t *testing.T) {
	dir := t.TempDir()
	var ran atomic.Int64
	_, err := runSquares(dir, Shard{}, 3, &ran)
	require.NoError(t, err)
	_, err = runSquares(dir, Shard{}, 4, &ran)
	require.ErrorContains(t, err, "holds another sweep")
	_, err = runSquares(dir, Shard{0, 2}, 3, &ran)
	require.ErrorContains(t, err, "holds shard all of this sweep, not 0/2")

	name := filepath.Join(dir, "points", pointFile(2))
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(name, []byte(strings.Replace(string(b), `"square":4`, `"square":5`, 1)), 0o644))
	_, err = runSquares(dir, Shard{}, 3, &ran)
	require.ErrorContains(t, err, "does not match its SHA-256")
	require.ErrorContains(t, err, "delete the file and run the same command again")

	sh := t.TempDir()
	_, err = runSquares(filepath.Join(sh, "a"), Shard{0, 2}, 3, &ran)
	require.True(t, errors.Is(err, ErrSharded))
	_, err = MergeDirs([]string{filepath.Join(sh, "a")}, filepath.Join(sh, "m"))
	require.ErrorContains(t, err, "1 of 3 points are missing (1)")
	_, err = MergeDirs([]string{filepath.Join(sh, "a"), filepath.Join(sh, "a")}, filepath.Join(sh, "m"))
	require.ErrorContains(t, err, "both hold shard 0/2")
	_, err = MergeDirs([]string{filepath.Join(sh, "a")}, filepath.Join(sh, "a"))
	require.ErrorContains(t, err, "one of the directories merged")
	_, err = RunKept("squares", 1, 3, Options{Shard: Shard{0, 2}}, func(i int) (int, error) { return i, nil })
	require.ErrorContains(t, err, "--shard needs --out")
}

// A merge of shards refuses a directory of another sweep or build, a
// shard or point given twice, and points held by none (at most ten
// named).
func TestShardMergeRefuses(t *testing.T) {
	b1 := buildinfo.Build{Version: "v1", Commit: "1111"}
	b2 := buildinfo.Build{Version: "v1", Commit: "2222"}
	a := dirRecord{"a", "0/2", b1}
	for _, c := range []struct {
		name string
		run  func(m *shardMerge) error
		want string
	}{
		{"another sweep", func(m *shardMerge) error { return m.add(dirRecord{"b", "1/2", b1}, false) }, "merge: a and b hold different sweeps"},
		{"another build", func(m *shardMerge) error { return m.add(dirRecord{"b", "1/2", b2}, true) }, "merge: a was run by acemu v1, commit 1111, and b by acemu v1, commit 2222"},
		{"a shard twice", func(m *shardMerge) error { return m.add(dirRecord{"b", "0/2", b1}, true) }, "merge: a and b both hold shard 0/2"},
		{"a point twice", func(m *shardMerge) error {
			require.NoError(t, m.point(3, "a"))
			return m.point(3, "b")
		}, "merge: point 3 is in both a and b"},
		{"points missing", func(m *shardMerge) error {
			require.NoError(t, m.point(0, "a"))
			return m.complete(13) // 1 to 12 missing: ten named
		}, "merge: 12 of 13 points are missing (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m shardMerge
			require.NoError(t, m.add(a, true))
			require.ErrorContains(t, c.run(&m), c.want)
		})
	}
	var m shardMerge
	require.NoError(t, m.add(a, true))
	require.NoError(t, m.add(dirRecord{"b", "1/2", b1}, true))
	require.NoError(t, m.point(0, "a"))
	require.NoError(t, m.point(1, "b"))
	require.NoError(t, m.complete(2))
}

// sweepsUnder finds every sweep's and kept points' directory however
// deep, and does not walk into a sweep's points (thousands of files,
// none of them a sweep): a description file there is not one.
func TestSweepsUnderSkipsPoints(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"fig5/" + KeptFile,
		"fig5/points/" + KeptFile, // inside a sweep's points: not a sweep
		"fig10/sweep/" + SweepFile,
		"fig10/sweep/points/" + SweepFile,
		"other/points/" + SweepFile, // a "points" beside no description is walked
	} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o644))
	}
	got, err := sweepsUnder(dir)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"fig5":         KeptFile,
		"fig10/sweep":  SweepFile,
		"other/points": SweepFile,
	}, got)
}
