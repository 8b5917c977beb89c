package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/validation"
)

// acemu reproduce NAME runs the registry's figure: its table, then its
// part of the report (the findings table); with --out, the table's files,
// the plots and the runs' points in DIR/sweep.
func TestReproduceNamePrintsTableAndReport(t *testing.T) {
	dir := t.TempDir()
	args := []string{"reproduce", "fig6", "--topos", "4x2x1", "--size", "128KiB", "--sms", "1,16", "--out", dir}
	code, out, errOut := runCLI(args...)
	require.Equal(t, 0, code, errOut)
	table := strings.Index(out, "comm SMs")
	report := strings.Index(out, reportPartLead+"fig6")
	require.True(t, table >= 0 && report > table, "the table, then the report:\n%s", out)
	for _, s := range []string{"findings hold", "The paper's values beside acemu's:", "within the paper's precision: ", "The paper's findings, whether each holds:", "  yes: with few SMs"} {
		require.Contains(t, out[report:], s)
	}
	requireNarrow(t, out, tableWidth)
	for _, f := range []string{"result.txt", "result.csv", "result.json", "platform.yaml", "fig6.png", "fig6.svg", "sweep/kept.json", "sweep/points/000000.json"} {
		require.FileExists(t, filepath.Join(dir, f))
	}
	txt, err := os.ReadFile(filepath.Join(dir, "result.txt"))
	require.NoError(t, err)
	require.NotContains(t, string(txt), reportPartLead, "result.txt is the table alone")

	// A figure of the report alone runs by name too: its report only.
	code, out, errOut = runCLI("reproduce", "libra-e3", "--format", "csv")
	require.Equal(t, 1, code, out)
	require.Contains(t, errOut, "libra-e3 has no table of its own")
}

// A flag the figure does not take is refused, naming those it takes.
func TestReproduceRefusesFlagsNamingThoseTaken(t *testing.T) {
	requireRefused(t, 1, "--sms is not used by fig5; drop it (fig5 takes --topos, --size and --mem, the platform flags", "reproduce", "fig5", "--sms", "4")
	requireRefused(t, 1, "--topos is not used by sec6a; drop it (sec6a takes no flag of its own", "reproduce", "sec6a", "--topos", "4x2x1")
	requireRefused(t, 1, "--memory-policy is not used by ccube-fig12a", "reproduce", "ccube-fig12a", "--memory-policy", "partition")
	requireRefused(t, 1, "--sram is for ACE, which --systems does not include", "reproduce", "ccube-fig13", "--systems", "baseline-commopt", "--sram", "8MiB")
	requireRefused(t, 1, "--shard needs --out", "reproduce", "fig5", "--shard", "0/2")
	requireRefused(t, 1, "--shard 2/2: the index must be 0 to 1", "reproduce", "fig5", "--shard", "2/2", "--out", t.TempDir())
}

// The choices' sweep's --keys and --into are its own, checked before
// anything runs.
func TestReproduceChoicesKeysAndInto(t *testing.T) {
	requireRefused(t, 1, "--keys: ace.bogus is not one of the choices swept", "reproduce", "choices", "--keys", "ace.bogus")
	requireRefused(t, 1, "--keys: training.micro is not swept", "reproduce", "choices", "--keys", "training.micro")
	bad := filepath.Join(t.TempDir(), "choices.json")
	require.NoError(t, os.WriteFile(bad, []byte("[{\"key\": 1}]"), 0o644))
	requireRefused(t, 1, "--into: "+bad+" is not a choices' runs file (json: cannot unmarshal number", "reproduce", "choices", "--keys", "ace.partition", "--into", bad)
	requireRefused(t, 1, "--into merges a whole run's results", "reproduce", "choices", "--into", "x.json", "--shard", "0/2", "--out", t.TempDir())
	requireRefused(t, 1, "--keys is for acemu reproduce choices", "reproduce", "fig5", "--keys", "ace.partition")
	requireRefused(t, 1, "--into is for acemu reproduce choices", "reproduce", "all", "--into", "x.json")
	requireRefused(t, 1, "--docs is not for `acemu reproduce choices`, which takes only --quick, --out", "reproduce", "choices", "--docs", "x.md")
	empty := filepath.Join(t.TempDir(), "empty.json")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	requireRefused(t, 1, empty+" is not a choices' runs file (EOF): give another, or remove it to start one", "reproduce", "choices", "--into", empty)
}

// acemu reproduce NAME --shard i/n runs a slice of its sweep; acemu
// reproduce merge combines the slices; the command run again on the merge
// runs nothing: its JSON, table and points are one run's.
func TestReproduceShardsMergeToOneRunsReport(t *testing.T) {
	dir := t.TempDir()
	fig := []string{"reproduce", "fig5", "--topos", "4x2x1", "--size", "128KiB", "--mem", "64,900", "--format", "json"}
	run := func(extra ...string) string {
		t.Helper()
		code, out, errOut := runCLI(append(append([]string(nil), fig...), extra...)...)
		require.Equal(t, 0, code, errOut)
		return out
	}
	one := run("--out", filepath.Join(dir, "one"))
	for _, i := range []string{"0", "1"} {
		out := run("--shard", i+"/2", "--out", filepath.Join(dir, "s"+i))
		require.Contains(t, out, "shard "+i+"/2 of fig5")
		require.NoFileExists(t, filepath.Join(dir, "s"+i, "result.json"))
	}
	code, out, errOut := runCLI("reproduce", "merge", filepath.Join(dir, "s0"), filepath.Join(dir, "s1"), "--out", filepath.Join(dir, "m"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "merged 1 sweep into")
	require.Equal(t, one, run("--out", filepath.Join(dir, "m")))
	for _, f := range []string{"result.json", "result.txt", "sweep/kept.json", "sweep/points/000004.json"} {
		a, err := os.ReadFile(filepath.Join(dir, "one", f))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dir, "m", f))
		require.NoError(t, err)
		require.Equal(t, string(a), string(b), f)
	}
	requireRefused(t, 1, "3 of 5 points", "reproduce", "merge", filepath.Join(dir, "s1"), "--out", filepath.Join(dir, "m2"))
	requireRefused(t, 1, "give --out DIR", "reproduce", "merge", filepath.Join(dir, "s1"))
}

// A figure without a table of its own (sec6a and the like) prints its part
// of the report: as lines in the table format, as the report's JSON with
// --format json (nothing else), and --out writes it as report.md and
// report.json. The outcome here is made up: only how it is written is
// tested.
func TestReproduceFigureWithoutATableWritesItsReport(t *testing.T) {
	f, ok := validation.Lookup("sec6a")
	require.True(t, ok)
	require.False(t, f.Tabled)
	rep := &validation.Report{Results: []validation.Result{{Figure: f, Outcome: &validation.Outcome{
		Findings: []validation.Finding{{Claim: "a claim", Where: "Section VI-A", Holds: true, Measured: "1 byte"}}}}}}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	require.Zero(t, writeFigure(rep, platform.Default(), "json", false, dir, &out, &errb), errb.String())
	var doc map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), "JSON alone: %s", out.String())
	require.Contains(t, doc, "results")
	for _, name := range []string{"report.md", "report.json"} {
		require.FileExists(t, filepath.Join(dir, name))
	}
	out.Reset()
	require.Zero(t, writeFigure(rep, platform.Default(), "table", false, "", &out, &errb), errb.String())
	require.Contains(t, out.String(), reportPartLead+"sec6a")
	require.Contains(t, out.String(), "  yes: a claim (Section VI-A): 1 byte\n")
}
