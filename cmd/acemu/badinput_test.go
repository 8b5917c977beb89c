package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// badInput is one case of testdata/badinput/cases*.json: acemu's
// arguments, and what the error must name ("" for a valid input, which
// must succeed).
type badInput struct {
	Name string   `json:"name"`
	Args []string `json:"args"`
	Want string   `json:"want"`
}

// TestBadInputs runs every bad and edge input of the table (over 800, on
// every command and flag; docs/bad-input.md): each bad one exits non-zero
// with a message from acemu that names the problem, each valid one
// succeeds, none panics, and none takes more than a minute.
func TestBadInputs(t *testing.T) {
	t.Chdir("../..") // the cases' paths are the repository's
	var table struct {
		Cases []badInput `json:"cases"`
	}
	files, err := filepath.Glob("testdata/badinput/cases*.json") // cases.json, then a file per class (cases-CLASS.json)
	require.NoError(t, err)
	require.Contains(t, files, "testdata/badinput/cases.json")
	names := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var part struct {
			Cases []badInput `json:"cases"`
		}
		require.NoError(t, json.Unmarshal(b, &part), f)
		for _, c := range part.Cases {
			require.NotContains(t, names, c.Name, "case %s in %s and %s", c.Name, names[c.Name], f)
			names[c.Name] = f
		}
		table.Cases = append(table.Cases, part.Cases...)
	}
	require.GreaterOrEqual(t, len(table.Cases), 300)
	bad := 0
	for _, c := range table.Cases {
		if c.Want != "" {
			bad++
			// What a message must name is more than the command every
			// message of a command starts with.
			require.NotContains(t, []string{"acemu", "collective", "sweep", "reproduce", "topology", "config", "microcode", "merge", "dump"},
				strings.TrimSpace(c.Want), "case %s: want names only the command", c.Name)
		}
		t.Run(c.Name, func(t *testing.T) {
			tmp := t.TempDir()
			args := make([]string, len(c.Args))
			for i, a := range c.Args {
				args[i] = strings.ReplaceAll(a, "$TMP", tmp)
			}
			code, stderr, err := runGuarded(args, time.Minute)
			require.NoError(t, err, "acemu %s", strings.Join(args, " "))
			if c.Want == "" {
				require.Equal(t, 0, code, "acemu %s: a valid input fails: %s", strings.Join(args, " "), stderr)
				return
			}
			require.NotEqual(t, 0, code, "acemu %s: a bad input succeeds", strings.Join(args, " "))
			require.True(t, strings.HasPrefix(stderr, "acemu"), "acemu %s: the message is not acemu's: %q", strings.Join(args, " "), stderr)
			require.Contains(t, stderr, c.Want, "acemu %s: the message does not name the problem", strings.Join(args, " "))
		})
	}
	require.GreaterOrEqual(t, bad, 300, "bad inputs in the table")
}

// runGuarded runs acemu in-process with a deadline, turning a panic or a
// hang into an error.
func runGuarded(args []string, limit time.Duration) (code int, stderr string, err error) {
	type result struct {
		code   int
		stderr string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("panic: %v", r)}
			}
		}()
		c := run(args, &out, &errb)
		done <- result{code: c, stderr: errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr, r.err
	case <-time.After(limit):
		return 0, "", fmt.Errorf("no answer in %s", limit)
	}
}

// Inputs that once took gigabytes (or ran out of memory) are refused with
// bounded memory: the heap the process takes from the system
// (runtime.MemStats.HeapSys) grows by less than 512 MB for each.
func TestHugeInputsAreRefusedWithLittleMemory(t *testing.T) {
	dir := t.TempDir()
	many := dir + "/many.txt"
	require.NoError(t, os.WriteFile(many, []byte("DATA\n100000\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 1024 1\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", many, "--topo", "4x2x1"}, "more than 10000 layers"},
		{[]string{"collective", "--topo", "129x129x1", "--size", "64KiB"}, "16641 NPUs to simulate one by one; a run simulates at most 1024"}, // odd rings: no folding
		{[]string{"--workload", "resnet50", "--topo", "4x2x1", "--workers", "1000000"}, "--workers 1000000"},
		{[]string{"topology", "dump", "--topo", "64x32x32"}, "holds 2 to 4096 nodes"},
		{[]string{"collective", "--topo", "65536x1x1", "--size", "64KiB"}, "a group of 65536 NPUs"},
		{[]string{"sweep", "--set", "ace.fsms=3..1000:1", "--set", "links.tx_buffer=1..1000:1"}, "more than 100000 points"},
		{[]string{"collective", "--topo", "/dev/zero"}, "larger than 16 MiB"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, stderr, err := runGuarded(c.args, time.Minute)
		runtime.ReadMemStats(&after)
		require.NoError(t, err, c.args)
		require.NotEqual(t, 0, code, c.args)
		require.Contains(t, stderr, c.want, c.args)
		grew := int64(after.HeapSys) - int64(before.HeapSys) // it may shrink too
		require.Less(t, grew, int64(512<<20), "%v took %d MB of heap", c.args, grew>>20)
	}
}
