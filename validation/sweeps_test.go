package validation

import (
	"bytes"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/sweep"
)

// sweepCases are small runs of a figure of lone collectives and one of
// training runs, as `acemu reproduce NAME` gives them options.
var sweepCases = []struct {
	name string
	opts Options
	runs int64 // simulations in one run, counted by hand
}{
	// One topology: the ideal endpoint, then the baseline and ACE at
	// each of two memory bandwidths: 1 + 2 × 2.
	{"fig5", Options{Topos: []string{"4x2x1"}, Size: 128 << 10, Mem: []int64{64, 900}}, 5},
	// Two SRAM sizes × one FSM count × one workload × one topology.
	{"fig9a", Options{Topos: []string{"4x2x1"}, Workloads: []string{"dlrm"}, SRAM: []int64{4 << 20, 8 << 20}, FSMs: []int{16}}, 2},
}

// runCounted runs figure name into dir in shard sh with o, and returns
// its report's JSON ("" for a shard) and how many simulations started.
func runCounted(t *testing.T, name, dir string, sh sweep.Shard, o Options) (string, int64) {
	t.Helper()
	var ran atomic.Int64
	rep, err := RunIn(Env{Platform: platform.Default(), Dir: dir, Shard: sh, Options: &o, Ran: func(int) { ran.Add(1) }}, name)
	require.NoError(t, err, name)
	if sh.N > 1 {
		require.Empty(t, rep.Results, "%s: a shard gives no outcome", name)
		return "", ran.Load()
	}
	require.Len(t, rep.Results, 1)
	f := rep.Results[0]
	require.Equal(t, f.Figure.Tabled, f.Table != nil, "%s: a table as its figure declares", name)
	require.Equal(t, f.Figure.Draws, len(f.Plots) > 0, "%s: plots as its figure declares", name)
	var b bytes.Buffer
	require.NoError(t, rep.WriteJSON(&b))
	return b.String(), ran.Load()
}

// A figure run again into its directory runs no simulation and gives the
// same report; its shards' directories, merged, give one where it runs
// none either and gives the same report as one run.
func TestFiguresAreResumableAndShardableSweeps(t *testing.T) {
	for _, c := range sweepCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			one, ran := runCounted(t, c.name, filepath.Join(dir, "one"), sweep.Shard{}, c.opts)
			require.Equal(t, c.runs, ran)
			again, ran := runCounted(t, c.name, filepath.Join(dir, "one"), sweep.Shard{}, c.opts)
			require.Zero(t, ran, "the second run simulates nothing")
			require.Equal(t, one, again)

			total := int64(0)
			shards := []string{filepath.Join(dir, "s0"), filepath.Join(dir, "s1")}
			for i, d := range shards {
				_, ran := runCounted(t, c.name, d, sweep.Shard{I: i, N: 2}, c.opts)
				total += ran
			}
			require.Equal(t, c.runs, total, "the shards run every point once")
			_, err := sweep.MergeDirs(shards, filepath.Join(dir, "merged"))
			require.NoError(t, err)
			merged, ran := runCounted(t, c.name, filepath.Join(dir, "merged"), sweep.Shard{}, c.opts)
			require.Zero(t, ran, "the merged directory holds every point")
			require.Equal(t, one, merged)
		})
	}
}

// The choices' sweep keeps its runs under --out: run again, it runs
// nothing and says the same; in two shards merged, every run once, and
// the same again.
func TestChoicesAreResumableAndShardable(t *testing.T) {
	choices := []Choice{{Key: "links.tx_buffer", Others: []string{"16"}}}
	run := func(dir string, sh sweep.Shard) ([]ChoiceRun, int64, error) {
		var ran atomic.Int64
		e := Env{Platform: platform.Default(), Quick: true, Dir: dir, Shard: sh, Ran: func(int) { ran.Add(1) }}
		_, runs, err := RunChoices(e, choices, nil, "sec6a")
		return runs, ran.Load(), err
	}
	dir := t.TempDir()
	one, ran, err := run(filepath.Join(dir, "one"), sweep.Shard{})
	require.NoError(t, err)
	// sec6a's three lone all-reduces (ideal, ACE, baseline), in the base
	// report and again with the key set: 2 × 3.
	require.EqualValues(t, 6, ran)
	require.Len(t, one, 1)
	require.Equal(t, []string{"sec6a"}, one[0].Figures)
	require.DirExists(t, filepath.Join(dir, "one", "sec6a"))
	require.DirExists(t, filepath.Join(dir, "one", "choices", "links.tx_buffer=16", "sec6a"))
	again, ranAgain, err := run(filepath.Join(dir, "one"), sweep.Shard{})
	require.NoError(t, err)
	require.Zero(t, ranAgain, "the second run simulates nothing")
	require.Equal(t, one, again)

	shards := []string{filepath.Join(dir, "s0"), filepath.Join(dir, "s1")}
	total := int64(0)
	for i, d := range shards {
		_, n, err := run(d, sweep.Shard{I: i, N: 2})
		require.ErrorIs(t, err, sweep.ErrSharded)
		total += n
	}
	require.Equal(t, ran, total, "the shards run every point once")
	_, err = sweep.MergeDirs(shards, filepath.Join(dir, "merged"))
	require.NoError(t, err)
	merged, n, err := run(filepath.Join(dir, "merged"), sweep.Shard{})
	require.NoError(t, err)
	require.Zero(t, n, "the merged directory holds every point")
	require.Equal(t, one, merged)
}

// A choice's directory names its key and value, path-escaped.
func TestChoiceDir(t *testing.T) {
	require.Equal(t, filepath.Join("choices", "ace.partition=paper"), ChoiceDir("ace.partition", "paper"))
	require.Equal(t, filepath.Join("choices", "links.nvlink.bandwidth=20GB%2Fs"), ChoiceDir("links.nvlink.bandwidth", "20GB/s"))
}
