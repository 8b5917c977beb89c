package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain lets a test run acemu as a process of its own (the test binary
// with ACEMU_TEST_MAIN=1 is acemu), for what only a process shows: exit
// codes on signals.
func TestMain(m *testing.M) {
	if os.Getenv("ACEMU_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// sweepArgs is a sweep of 8 small points (about a second in all).
var sweepArgs = []string{"sweep", "--set", "ace.fsms=4..16:4", "--set", "training.iterations=1", "--workload", "dlrm",
	"--topo", "4x2x1,4x2x2", "--systems", "ace,ideal", "--workers", "1"}

func runArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// Shards run into their own directories and merged print, in every
// format, exactly what the unsharded sweep prints; --out of a whole sweep
// holds the same.
func TestSweepShardsMergeToTheWholeSweep(t *testing.T) {
	dir := t.TempDir()
	var dirs []string
	for i := 0; i < 3; i++ {
		d := filepath.Join(dir, "shard-"+string(rune('0'+i)))
		out, errs, code := runArgs(t, append(sweepArgs, "--shard", string(rune('0'+i))+"/3", "--out", d)...)
		require.Equal(t, 0, code, errs)
		require.Contains(t, out, "shard "+string(rune('0'+i))+"/3:")
		dirs = append(dirs, d)
	}
	whole := filepath.Join(dir, "whole")
	for _, format := range []string{"table", "csv", "json"} {
		// The first runs the sweep; the others print it from its points.
		want, errs, code := runArgs(t, append(sweepArgs, "--format", format, "--out", whole)...)
		require.Equal(t, 0, code, errs)
		merged, errs, code := runArgs(t, append([]string{"sweep", "merge", "--format", format}, dirs...)...)
		require.Equal(t, 0, code, errs)
		require.Equal(t, want, merged, format)
		if format == "table" {
			b, err := os.ReadFile(filepath.Join(whole, "result.txt"))
			require.NoError(t, err)
			require.Equal(t, want, string(b))
			require.Contains(t, want, "ace.fsms")
			require.Contains(t, want, "perf/area vs ref")
		}
	}
	for _, f := range []string{"result.csv", "result.json", "aggregate.csv", "sweep.json", "points/000007.json"} {
		require.FileExists(t, filepath.Join(whole, f))
	}
}

func TestSweepRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("set: {ace.sram: [1MiB, 2XB]}\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--set", "ace.bogus=1,2"}, `unknown parameter "ace.bogus"`},
		{[]string{"sweep", "--set", "ace.sram=1MiB,2XB"}, `"2XB"`},
		{[]string{"sweep", "--set", "ace.fsms="}, "ace.fsms"},
		{[]string{"sweep", "--set", "ace.fsms=4,,8"}, "an empty value"},
		{[]string{"sweep", "--workload", ""}, "--workload: an empty entry"},
		{[]string{"sweep", "--shard", "3/2", "--out", dir}, "--shard 3/2: the index must be 0 to 1"},
		{[]string{"sweep", "--shard", "0/2"}, "--shard needs --out"},
		{[]string{"sweep", "--workers", "-1"}, "--workers -1"},
		{[]string{"sweep", "--format", "xml"}, `--format "xml"`},
		{[]string{"sweep", "--file", filepath.Join(dir, "none.yaml")}, "--file"},
		{[]string{"sweep", "--file", filepath.Join(dir, "bad.yaml")}, `"2XB"`},
		{[]string{"sweep", "merge"}, "name the directories"},
		{[]string{"sweep", "merge", dir}, "is not a sweep's --out directory"},
		{[]string{"sweep", "--systems", "ace,tpu"}, `unknown system "tpu"`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, errs, code := runArgs(t, c.args...)
			require.NotEqual(t, 0, code)
			require.Contains(t, errs, c.want)
		})
	}
}

// interruptWhen runs acemu with args as a process, sends it SIGINT once
// ready() (polled) holds, and requires exit code 130; it returns stdout
// and stderr.
func interruptWhen(t *testing.T, ready func() bool, args ...string) (string, string) {
	t.Helper()
	return signalWhen(t, syscall.SIGINT, ready, args...)
}

// signalWhen is interruptWhen with signal sig.
func signalWhen(t *testing.T, sig os.Signal, ready func() bool, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "ACEMU_TEST_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(60 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("not ready in 60 s: %s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(sig))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "%v", err)
	require.Equal(t, 130, ee.ExitCode(), stderr.String())
	return stdout.String(), stderr.String()
}

// globbed says whether pattern matches at least n files.
func globbed(pattern string, n int) func() bool {
	return func() bool {
		m, _ := filepath.Glob(pattern)
		return len(m) >= n
	}
}

// A sweep interrupted with Ctrl-C (SIGINT) exits 130 with one line saying
// how many points finished, keeps them, and run again runs only the rest,
// ending with what an uninterrupted sweep prints.
func TestSweepInterruptedKeepsFinishedPoints(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	args := append(append([]string(nil), sweepArgs...), "--out", dir, "--format", "csv")
	_, stderr := interruptWhen(t, globbed(filepath.Join(dir, "points", "*.json"), 1), args...)
	require.Regexp(t, `acemu sweep: interrupted: \d of 8 points finished, kept in .*; the same command runs the rest\n$`, stderr)
	kept, _ := filepath.Glob(filepath.Join(dir, "points", "*.json"))
	require.Less(t, len(kept), 8, "the sweep stopped before its end")

	out, errs, code := runArgs(t, args...)
	require.Equal(t, 0, code, errs)
	require.Contains(t, errs, "points were kept in "+dir+" from an earlier run")
	whole, _, code := runArgs(t, append(append([]string(nil), sweepArgs...), "--format", "csv")...)
	require.Equal(t, 0, code)
	require.Equal(t, whole, out)
}

// A comparison interrupted before any system finished exits 130 with one
// line, and the trace files it was writing are gone, not truncated.
// SIGTERM and SIGHUP (the terminal closing) do the same as Ctrl-C.
func TestCompareInterruptedLeavesNoTruncatedFiles(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			// The trace files are open once the run has started.
			stdout, stderr := signalWhen(t, sig, globbed(filepath.Join(dir, "*.tmp"), 2), "--workload", "gnmt", "--topo", "4x4x4", "--full",
				"--systems", "ideal,ace", "--trace", filepath.Join(dir, "run.json"))
			require.Equal(t, "\nacemu: interrupted before any of the 2 systems finished; files being written were removed\n", stderr)
			require.Empty(t, stdout)
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Empty(t, ents, "no file, whole or partial")
		})
	}
}

// A point file edited after a sweep wrote it is refused when the sweep
// is run again, naming the file, what is wrong and the fix; deleted, the
// point runs again and the sweep prints what it printed before.
func TestSweepRefusesAnEditedPoint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	args := append(append([]string(nil), sweepArgs...), "--out", dir, "--format", "csv")
	want, errs, code := runArgs(t, args...)
	require.Equal(t, 0, code, errs)
	name := filepath.Join(dir, "points", "000003.json")
	for _, c := range []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"a cycle count", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"iteration_cycles_each":[`, `"iteration_cycles_each":[1`, 1))
		}, "ace: total cycles"},
		{"the SHA-256", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"sha256":"`, `"sha256":"0`, 1))
		}, "its content does not match its SHA-256"},
		{"the workload", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"workload":"dlrm"`, `"workload":"gnmt"`, 1))
		}, `workload "gnmt", where the sweep's is "dlrm"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := os.ReadFile(name)
			require.NoError(t, err)
			edited := c.edit(b)
			require.NotEqual(t, b, edited)
			require.NoError(t, os.WriteFile(name, edited, 0o644))
			_, errs, code := runArgs(t, args...)
			require.Equal(t, 1, code)
			require.Contains(t, errs, "acemu sweep: "+name+": ")
			require.Contains(t, errs, c.want)
			require.Contains(t, errs, "delete the file and run the same command again")

			require.NoError(t, os.Remove(name))
			out, errs, code := runArgs(t, args...)
			require.Equal(t, 0, code, errs)
			require.Contains(t, errs, "7 of 8 points were kept")
			require.Equal(t, want, out)
		})
	}
}
