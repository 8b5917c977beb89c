package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// memoryBound is the memory a run inside the limits of docs/bad-input.md
// ("Limits") stays under: 2 GB of max RSS.
const memoryBound = 2_000_000_000

// TestLimitsAtTheirEdge runs, as the built binary in a process of its own,
// the largest input each limit of docs/bad-input.md ("Limits") admits
// that is too costly for every test run (seconds to minutes each), and
// asserts that it succeeds under the 2 GB bound, measured as the process's
// max RSS (getrusage). The refusals just past each edge are cheap and run
// in TestBadInputs (testdata/badinput/cases-limitedge.json). Set
// ACEMU_LIMITS=1 to run them all, or to the name of one:
//
//	ACEMU_LIMITS=1 go test ./cmd/acemu -run TestLimitsAtTheirEdge -v -timeout 2h
//
// Each run's user CPU, wall time and max RSS are logged: they are the
// figures docs/bad-input.md gives.
func TestLimitsAtTheirEdge(t *testing.T) {
	which := os.Getenv("ACEMU_LIMITS")
	if which == "" {
		t.Skip("the limits' edges take minutes; set ACEMU_LIMITS=1 (or a case's name) to run them")
	}
	dir := t.TempDir()
	var bin string // built once, at the first case run
	for _, c := range []struct {
		name string
		args []string
	}{
		// 1024 NPUs simulated one by one (machine.MaxFullNPUs), the most
		// memory each: ACE's SRAM full of 64 KiB chunks on every NPU.
		{"full_npus_ace", []string{"collective", "--topo", "16x8x8", "--full", "--system", "ace", "--size", "4MiB"}},
		// An all-to-all on 512 NPUs simulated one by one
		// (machine.MaxFullAllToAllNPUs): ACE's, what passes through its
		// NPUs the most held.
		{"full_npus_ace_alltoall", []string{"collective", "--topo", "8x8x8", "--full", "--system", "ace", "--op", "all-to-all", "--size", "4MiB"}},
		// 2^21 chunk×NPU pairs (collectives.MaxChunkNPUs), folded.
		{"chunk_npus", []string{"collective", "--topo", "2x2x1", "--size", "512MiB", "--chunk", "256B", "--system", "ace"}},
		// 2^25 checked values (verify.MaxCheckValues): 64 KiB on 512 NPUs.
		{"check_data", []string{"collective", "--topo", "8x8x8", "--size", "64KiB", "--check-data", "--system", "ace"}},
		// 999 999 layer-iterations (train.MaxLayerIterations is 10^6)
		// over the five systems.
		{"layer_iterations", []string{"--workload", "testdata/badinput/lim_wl_1001layers.txt", "--topo", "2x2x1", "--iterations", "999"}},
		// A utilisation series of five systems whose longest run takes
		// 9.99 × 10^9 cycles, just under 10^7 windows
		// (compare.MaxSeriesWindows): 799 iterations of 12 505 947
		// cycles on the slowest system (baseline-compopt; 800 pass the
		// bound and are refused).
		{"series_five", []string{"--workload", "testdata/badinput/lim_wl_series_five.txt", "--topo", "2x2x1", "--iterations", "799", "--timeseries", "$TMP/s.csv"}},
		// Exactly 10^7 windows: one iteration of exactly 10^10 cycles
		// (8032128514 cycles of the workload's 1 GHz clock at 1245 MHz,
		// rounded up; lim_edge_maxcycle_at runs two of them).
		{"series_one", []string{"--workload", "testdata/badinput/lim_wl_maxcycle.txt", "--topo", "2x2x1", "--iterations", "1", "--systems", "ideal", "--timeseries", "$TMP/s.csv"}},
		// A ring of 512 NPUs (collectives.MaxGroup).
		{"group", []string{"collective", "--topo", "512x1x1", "--size", "64KiB"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if which != "1" && which != c.name {
				t.Skipf("ACEMU_LIMITS=%s", which)
			}
			if bin == "" {
				bin = filepath.Join(dir, "acemu")
				out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
				require.NoError(t, err, "go build: %s", out)
			}
			tmp := t.TempDir()
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "$TMP", tmp)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = filepath.Join("..", "..") // the cases' paths are the repository's
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			wall := time.Since(start)
			require.NoError(t, err, "acemu %s: %s", strings.Join(args, " "), stderr.String())
			ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			require.True(t, ok, "no rusage on this system")
			rss := ru.Maxrss * 1024 // KiB on Linux
			t.Logf("acemu %s: %.1f s user, %.1f s wall, %d MB max RSS", strings.Join(c.args, " "),
				cmd.ProcessState.UserTime().Seconds(), wall.Seconds(), rss/1_000_000)
			require.Less(t, rss, int64(memoryBound), "acemu %s: max RSS past the 2 GB bound", strings.Join(args, " "))
		})
	}
}
