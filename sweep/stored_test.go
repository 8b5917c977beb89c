package sweep

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/internal/buildinfo"
	"github.com/acemu/acemu/platform"
)

// tiny is a sweep of two points (ace.fsms 8 and 16) with three systems,
// so that a point has speed-ups and fractions of ideal to check.
func tiny(t *testing.T) *Spec {
	t.Helper()
	s, err := New(Request{Base: platform.Default(), Sets: []string{"ace.fsms=8,16", "training.iterations=2"},
		Workloads: []string{"dlrm"}, Topologies: []string{"4x2x1"}, Systems: []string{"ace", "ideal", "baseline-commopt"}})
	require.NoError(t, err)
	return s
}

// copyDir copies a sweep directory (sweep.json and points/) to a new one.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, os.CopyFS(to, os.DirFS(from)))
	return to
}

// editPoint rewrites a point's file with edit applied to its record; with
// rehash the SHA-256 is made to fit the edited record, so that only the
// record's own checks can find the edit.
func editPoint(t *testing.T, name string, rehash bool, edit func(r *storedPoint)) {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	var r storedPoint
	require.NoError(t, json.Unmarshal(b, &r))
	edit(&r)
	if rehash {
		r.SHA256, err = r.contentHash()
		require.NoError(t, err)
	}
	b, err = json.Marshal(r)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(name, b, 0o644))
}

// A point file edited after it was written (a cycle count, the SHA-256,
// the index, the workload...) is refused by a resumed run and by merge,
// naming the file, what is wrong and the fix; the unedited directory
// still merges to exactly what the run gave.
func TestStoredPointsAreVerified(t *testing.T) {
	s := tiny(t)
	dir := filepath.Join(t.TempDir(), "sweep")
	whole, err := Run(context.Background(), s, Options{Dir: dir, Workers: 2})
	require.NoError(t, err)
	m, err := Merge([]string{dir})
	require.NoError(t, err)
	require.Equal(t, whole.Points, m.Points)
	require.Equal(t, buildinfo.This(), m.Build)

	for _, c := range []struct {
		name   string
		rehash bool
		edit   func(r *storedPoint)
		raw    string // the file's content instead, when set
		want   string
	}{
		{name: "a cycle count", edit: func(r *storedPoint) { r.Point.Systems[0].PerIteration[1]++ },
			want: "ace: total cycles"},
		{name: "a total and its iteration together", edit: func(r *storedPoint) {
			a := &r.Point.Systems[1]
			a.PerIteration[0] += 2
			a.TotalCycles += 2
			a.TotalExposedComm += 2
			a.IterationCycles = float64(a.TotalCycles) / 2
			a.ExposedCommCycles = float64(a.TotalExposedComm) / 2
		}, want: "ace: fraction of ideal"},
		{name: "a number no other agrees with", edit: func(r *storedPoint) { r.Point.Systems[2].Events++ },
			want: "its content does not match its SHA-256"},
		{name: "the SHA-256", edit: func(r *storedPoint) { r.SHA256 = "0" + r.SHA256[1:] }, want: "does not match its SHA-256"},
		{name: "no SHA-256", edit: func(r *storedPoint) { r.SHA256 = "" }, want: "does not match its SHA-256"},
		{name: "the index", rehash: true, edit: func(r *storedPoint) { r.Point.Index = 0 }, want: "index 0 is not this file's point"},
		{name: "the workload", rehash: true, edit: func(r *storedPoint) { r.Point.Workload = "gnmt" },
			want: `workload "gnmt", where the sweep's is "dlrm"`},
		{name: "the topology", rehash: true, edit: func(r *storedPoint) { r.Point.Topology = "4x4x4" },
			want: `topology "4x4x4", where the sweep's is "4x2x1"`},
		{name: "an axis value", rehash: true, edit: func(r *storedPoint) { r.Point.Values = []string{"8"} },
			want: "values 8, where the sweep's are 16"},
		{name: "the sweep", rehash: true, edit: func(r *storedPoint) { r.Point.Sweep = "0" }, want: "of another sweep"},
		{name: "a system", rehash: true, edit: func(r *storedPoint) { r.Point.Systems = r.Point.Systems[:2] },
			want: "systems ace,ideal, where the sweep's are ace,ideal,baseline-commopt"},
		{name: "a mean", rehash: true, edit: func(r *storedPoint) { r.Point.Systems[2].IterationCycles += 0.5 },
			want: "baseline-commopt: iteration cycles per iteration"},
		{name: "compute", rehash: true, edit: func(r *storedPoint) { r.Point.Systems[0].TotalCompute-- },
			want: "ace: compute"},
		{name: "iterations", rehash: true, edit: func(r *storedPoint) { r.Point.Systems[0].Iterations = 3 },
			want: "ace: 3 iterations with 2 iteration times"},
		{name: "a speed-up", rehash: true, edit: func(r *storedPoint) { r.Point.SpeedupOfACE["ideal"] = 2 },
			want: "speed-up of ACE over ideal 2"},
		{name: "a speed-up too many", rehash: true, edit: func(r *storedPoint) { r.Point.SpeedupOfACE["ace"] = 1 },
			want: "3 speed-ups of ACE, where the systems give 2"},
		{name: "the build", rehash: true, edit: func(r *storedPoint) { r.Build.Commit = "abc123" },
			want: "written by acemu (devel), commit abc123, but its directory's sweep.json by acemu (devel), commit unknown"},
		{name: "the record version", rehash: true, edit: func(r *storedPoint) { r.Schema = 2 },
			want: "record version 2, where this acemu reads 1"},
		{name: "a record of before", raw: `{"sweep":"x","index":1}`, want: "written by an older acemu, which recorded neither its build nor a content hash"},
		{name: "a field added", raw: `{"schema":1,"extra":1}`, want: `unknown field "extra"`},
		{name: "two records", raw: `{"schema":1} {}`, want: "not a point's result (invalid character"},
		{name: "truncated", raw: `{"schema":1,"build":{`, want: "not a point's result"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := copyDir(t, dir)
			name := filepath.Join(d, "points", "000001.json")
			if c.raw != "" {
				require.NoError(t, os.WriteFile(name, []byte(c.raw), 0o644))
			} else {
				editPoint(t, name, c.rehash, c.edit)
			}
			_, err := Merge([]string{d})
			require.ErrorContains(t, err, "merge: "+name+": ")
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, "delete the file and run its shard again")
			_, err = Run(context.Background(), s, Options{Dir: d})
			require.ErrorContains(t, err, name+": ")
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, "delete the file and run the same command again")

			require.NoError(t, os.Remove(name)) // the fix: the point runs again
			again, err := Run(context.Background(), s, Options{Dir: d})
			require.NoError(t, err)
			require.Equal(t, 1, again.Ran)
			require.Equal(t, whole.Points, again.Points)
		})
	}
}

// Shards written by different builds are not merged (unless only whether
// their trees had changes differs); a directory begun by one build is not
// finished by another; a directory of before builds were recorded is
// refused, saying to run it again.
func TestBuildsAreNotMixed(t *testing.T) {
	s := tiny(t)
	v1 := buildinfo.Build{Version: "v1.0.0", Commit: "1111"}
	for _, c := range []struct {
		name   string
		second buildinfo.Build
		want   string // "" for shards that merge
	}{
		{"same build", v1, ""},
		{"same build, one modified", buildinfo.Build{Version: "v1.0.0", Commit: "1111", Modified: true}, ""},
		{"another commit", buildinfo.Build{Version: "v1.0.0", Commit: "2222"}, "was run by acemu v1.0.0, commit 1111, and "},
		{"another version", buildinfo.Build{Version: "v1.1.0", Commit: "1111", Modified: true}, "by acemu v1.1.0, commit 1111, modified: a table of both would mix two builds' results"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
			_, err := Run(context.Background(), s, Options{Dir: a, Shard: Shard{0, 2}, Build: v1})
			require.NoError(t, err)
			_, err = Run(context.Background(), s, Options{Dir: b, Shard: Shard{1, 2}, Build: c.second})
			require.NoError(t, err)
			m, err := Merge([]string{a, b})
			if c.want == "" {
				require.NoError(t, err)
				require.Equal(t, v1, m.Build)
				require.Len(t, m.Points, 2)
				return
			}
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, a)
			require.ErrorContains(t, err, b)
		})
	}

	dir := filepath.Join(t.TempDir(), "sweep")
	_, err := Run(context.Background(), s, Options{Dir: dir, Build: v1})
	require.NoError(t, err)
	_, err = Run(context.Background(), s, Options{Dir: dir, Build: buildinfo.Build{Version: "v1.0.0", Commit: "2222"}})
	require.ErrorContains(t, err, "--out "+dir+" was begun by acemu v1.0.0, commit 1111, and this is acemu v1.0.0, commit 2222")
	oc, err := Run(context.Background(), s, Options{Dir: dir, Build: v1})
	require.NoError(t, err)
	require.Equal(t, 2, oc.Kept)

	// sweep.json of before builds were recorded.
	b, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
	require.NoError(t, err)
	var old map[string]any
	require.NoError(t, json.Unmarshal(b, &old))
	delete(old, "schema")
	delete(old, "build")
	b, err = json.Marshal(old)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sweep.json"), b, 0o644))
	_, err = Run(context.Background(), s, Options{Dir: dir, Build: v1})
	require.ErrorContains(t, err, "sweep.json: written by an older acemu, which recorded neither its build nor a content hash; run the sweep into another directory")
	_, err = Merge([]string{dir})
	require.ErrorContains(t, err, "sweep.json: written by an older acemu")
}

// merge --out may not be one of the directories merged, another sweep's
// directory or a sweep's points directory; a directory of its own (new or
// not) is fine.
func TestMergeOutIsADirectoryOfItsOwn(t *testing.T) {
	s := tiny(t)
	base := t.TempDir()
	a, other := filepath.Join(base, "a"), filepath.Join(base, "other")
	for _, d := range []string{a, other} {
		_, err := Run(context.Background(), s, Options{Dir: d})
		require.NoError(t, err)
	}
	require.NoError(t, os.Mkdir(filepath.Join(base, "results"), 0o755))
	require.NoError(t, os.Symlink(a, filepath.Join(base, "link")))
	for _, c := range []struct {
		out  string
		want string
	}{
		{a, "is " + a + ", one of the directories merged"},
		{a + "/.", "one of the directories merged"},
		{filepath.Join(base, "link"), "one of the directories merged"},
		{other, "--out " + other + " is a sweep's directory (it has a sweep.json)"},
		{filepath.Join(other, "points"), "is a sweep's points directory"},
		{filepath.Join(base, "results"), ""},
		{filepath.Join(base, "new", "results"), ""},
		{"", ""},
	} {
		t.Run(c.out, func(t *testing.T) {
			err := CheckMergeOut(c.out, []string{a})
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, "merge: --out ")
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, "give a directory of its own for the results")
		})
	}
}

// A sweep.json that is not a sweep's is refused naming what is wrong,
// never with an empty reason ("(<nil>)"): JSON that does not parse, and
// a record of this version with no sweep in it.
func TestReadSweepSaysWhatIsWrong(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not JSON", `{"schema": 1,`, "d/sweep.json is not a sweep's (unexpected end of JSON input); fix"},
		{"no sweep", `{"schema": 1, "shard": "all"}`, `d/sweep.json is not a sweep's: it has no "sweep" (the sweep's axes and base platform); fix`},
		{"a null sweep", `{"schema": 1, "shard": "all", "sweep": null}`, `it has no "sweep"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readSweep("d", []byte(tc.json), "fix")
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "<nil>")
		})
	}
}
