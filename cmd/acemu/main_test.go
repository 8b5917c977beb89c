package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/collectives/microcode"
	"github.com/acemu/acemu/units"
	"github.com/stretchr/testify/require"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// requireRefused runs acemu with args and requires exit status code and
// an error message on stderr containing msg.
func requireRefused(t *testing.T, code int, msg string, args ...string) {
	t.Helper()
	got, _, errOut := runCLI(args...)
	require.Equal(t, code, got, "acemu %v", args)
	require.Contains(t, errOut, msg, "acemu %v", args)
}

func TestCollectiveJSON(t *testing.T) {
	code, out, errOut := runCLI("collective", "--topo", "4x2x2", "--op", "allreduce", "--size", "1MiB", "--system", "ideal", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	for _, key := range []string{"cycles", "payload_bytes", "bytes_sent_per_npu", "network_gbps_per_npu", "link_utilization"} {
		require.Contains(t, r, key)
	}
	require.Equal(t, float64(1<<20), r["payload_bytes"])
	// 4x2x2: 3/4 + 2·(1/2)·(1/4) + 2·(1/2)·(1/4) + 3/4 = 2 × payload.
	require.Equal(t, float64(2<<20), r["bytes_sent_per_npu"])
	util := r["link_utilization"].(map[string]any)
	require.Len(t, util, 3)
	// bytes/seconds: 2 MiB / (cycles / 1.245e9) / 1e9.
	cycles := r["cycles"].(float64)
	require.InDelta(t, float64(2<<20)/(cycles/1.245e9)/1e9, r["network_gbps_per_npu"], 1e-9)
}

// The same command twice gives byte-identical output, trace hash included.
func TestCollectiveOutputIsReproducible(t *testing.T) {
	args := []string{"collective", "--topo", "2x3x4", "--size", "300KB", "--format", "json", "--trace-hash"}
	c1, o1, _ := runCLI(args...)
	c2, o2, _ := runCLI(args...)
	require.Equal(t, 0, c1)
	require.Equal(t, 0, c2)
	require.Equal(t, o1, o2)
	require.Contains(t, o1, "trace_hash")
}

func TestCollectiveTable(t *testing.T) {
	code, out, _ := runCLI("collective", "--topo", "4x1x1", "--size", "64KiB")
	require.Equal(t, 0, code)
	require.Contains(t, out, "bytes sent per NPU")
	require.Contains(t, out, "98304 (1.5000 × payload)") // 2·3/4 · 64 KiB
}

// --comm-sms is judged by the system: 0 is what the ideal endpoint and
// ACE use, and all 80 SMs are a baseline's that does not overlap.
func TestCollectiveCommSMs(t *testing.T) {
	for _, args := range [][]string{
		{"--system", "ideal", "--comm-sms", "0"},
		{"--system", "ace", "--comm-sms", "0"},
		{"--system", "baseline-nooverlap", "--comm-sms", "80"},
	} {
		code, out, errOut := runCLI(append([]string{"collective", "--topo", "4x1x1", "--size", "64KiB"}, args...)...)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		require.Contains(t, out, "bytes sent per NPU")
	}
}

func TestCollectiveErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"collective", "--topo", "4x0x4"}, 1, "dimension V is 0"},
		{[]string{"collective", "--topo", "axb"}, 1, "not a whole number"},
		{[]string{"collective", "--size", "lots"}, 1, "--size"},
		{[]string{"collective", "--system", "gpu"}, 1, "unknown system \"gpu\": use one of baseline-nooverlap"},
		{[]string{"collective", "--system", "baseline"}, 1, "--comm-sms"},
		{[]string{"collective", "--system", "baseline-commopt", "--comm-sms", "-1"}, 1, "--comm-sms -1"},
		{[]string{"collective", "--system", "baseline-commopt", "--comm-sms", "0"}, 1, "--comm-sms 0: out of range; the baseline's collectives run on SMs and the NPU has 80 SMs and compute, running alongside, needs at least one, so use 1..79"},
		{[]string{"collective", "--system", "ideal", "--comm-sms", "3"}, 1, "ideal: --comm-sms 3: the ideal endpoint uses no SMs"},
		{[]string{"collective", "--system", "ace", "--comm-mem-bw", "fast"}, 1, "--comm-mem-bw"},
		{[]string{"collective", "--format", "xml"}, 1, "--format"},
		{[]string{"collective", "--bogus"}, 2, "unknown flag"},
		{[]string{"collective", "extra"}, 2, "unexpected argument"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"collective", "--size", "1GiB", "--chunk", "1B"}, 1, "afi.chunk = \"1B\": out of range: give 256B to 1GiB"},
		// Too many NPUs to run one by one, and a plan that cannot be folded
		// (1-byte blocks on a 256-ring): the refusal says why it is not folded.
		{[]string{"collective", "--topo", "256x256x1"}, 1, "this plan cannot be folded: hierarchical allreduce on 256x256x1, phase 2"},
	}
	for _, tc := range tests {
		code, _, errOut := runCLI(tc.args...)
		require.Equal(t, tc.code, code, tc.args)
		require.Contains(t, errOut, tc.msg, tc.args)
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI("collective", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "--topo")
	require.Contains(t, out, "hierarchical")
	code, out, _ = runCLI("help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "acemu collective")
	// acemu help COMMAND is COMMAND's --help, once, on stdout.
	for _, c := range []string{"collective", "microcode", "reproduce", "config", "topology"} {
		code, out, errOut := runCLI("help", c)
		require.Equal(t, 0, code, c)
		require.Contains(t, out, "Usage: acemu "+c, c)
		require.Equal(t, 1, strings.Count(out, "Usage:"), c)
		require.Empty(t, errOut, c)
	}
	requireRefused(t, 2, `acemu help: unknown command "bogus"`, "help", "bogus")
}

func TestCollectiveCheckData(t *testing.T) {
	tests := [][]string{
		{"--topo", "2x3x4", "--size", "100000", "--op", "reduce-scatter"},
		{"--topo", "4x2x2", "--size", "50KB", "--op", "all-gather"},
		{"--topo", "3x2x2", "--size", "30000", "--algorithm", "blueconnect", "--factors", "3x2x2"},
		{"--topo", "8x1x1", "--size", "20000", "--algorithm", "ring", "--unidirectional"},
		{"--topo", "4x2x2", "--size", "64KiB", "--phases", "rs:local:ring,ar:vertical,ar:horizontal,ag:local:ring"},
	}
	for _, args := range tests {
		code, out, errOut := runCLI(append([]string{"collective", "--check-data", "--format", "json"}, args...)...)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		require.Equal(t, true, r["data_ok"], args)
	}
}

func TestCollectiveFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"--op", "broadcast"}, "--op"},
		{[]string{"--algorithm", "magic"}, "want one of"},
		{[]string{"--factors", "3x2x2"}, "--factors is for --algorithm blueconnect"},
		{[]string{"--phases", "rs:local"}, "do not make an all-reduce"},
		{[]string{"--algorithm", "blueconnect", "--factors", "3xq"}, "not a whole number"},
		{[]string{"--algorithm", "blueconnect", "--factors", "5x5"}, "multiply to 25"},
		{[]string{"--check-data", "--size", "64MiB"}, "smaller --size"},
	}
	for _, tc := range tests {
		code, _, errOut := runCLI(append([]string{"collective", "--size", "64KiB"}, tc.args...)...)
		require.Equal(t, 1, code, tc.args)
		require.Contains(t, errOut, tc.msg, tc.args)
	}
}

func TestMicrocodeCommandAndUserPrograms(t *testing.T) {
	code, listing, errOut := runCLI("microcode", "--topo", "4x1x1", "--size", "4096", "--npu", "1")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, listing, "npu 1 chunk 4096")
	require.Contains(t, listing, "dma-in")
	require.Contains(t, listing, "signal")

	dir := t.TempDir()
	run := func(text string) (int, map[string]any, string) {
		path := filepath.Join(dir, "prog.ucode")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		code, out, errOut := runCLI("collective", "--topo", "4x1x1", "--size", "4096", "--check-data", "--format", "json", "--microcode", path)
		var r map[string]any
		if out != "" {
			require.NoError(t, json.Unmarshal([]byte(out), &r))
		}
		return code, r, errOut
	}
	// The listing as printed runs and gives the right result.
	code, r, errOut := run(listing)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, true, r["data_ok"])
	// A valid program that stores where it should reduce runs, and the data
	// check says the result is wrong: the report says so, and the run fails.
	code, r, errOut = run(strings.Replace(listing, " reduce ", " store ", 1))
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "--check-data: the result is wrong")
	require.Equal(t, false, r["data_ok"])
	require.Contains(t, r["data_error"], "want")
	// A malformed program is refused with file:line.
	code, _, errOut = run(strings.Replace(listing, "port=local+", "port=local*", 1))
	require.Equal(t, 1, code)
	require.Regexp(t, `prog\.ucode:\d+: .*port`, errOut)

	requireRefused(t, 1, "NPUs 0 to 3", "microcode", "--topo", "4x1x1", "--npu", "9")
}

func TestHelpListsEveryAlgorithm(t *testing.T) {
	_, out, _ := runCLI("collective", "--help")
	for _, a := range collectives.Algorithms() {
		require.Contains(t, out, "  "+a.Name+" (", a.Name)
	}
	for _, g := range collectives.GroupAlgorithmNames() {
		require.Contains(t, out, g)
	}
}

// Every algorithm is reachable by name from the command line.
func TestEveryAlgorithmRunsFromTheCommandLine(t *testing.T) {
	for _, a := range collectives.Algorithms() {
		op := a.Ops[0].String()
		code, out, errOut := runCLI("collective", "--topo", "4x2x2", "--size", "20000", "--algorithm", a.Name, "--op", op, "--check-data", "--format", "json")
		require.Equal(t, 0, code, "%s: %s", a.Name, errOut)
		require.Contains(t, out, `"data_ok": true`, a.Name)
	}
}

func TestCollectiveOnACE(t *testing.T) {
	code, out, errOut := runCLI("collective", "--system", "ace", "--topo", "4x2x2", "--size", "256KiB", "--check-data", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Equal(t, true, r["data_ok"])
	// ACE reads and writes each payload byte once.
	require.Equal(t, float64(256<<10), r["mem_read_bytes_per_npu"])
	require.Equal(t, float64(256<<10), r["mem_write_bytes_per_npu"])
	require.Contains(t, r, "ace_utilization")
	a := r["ace"].(map[string]any)
	for _, k := range []string{"sram_read_busy", "sram_write_busy", "alu_busy", "dma_busy", "fsm_busy", "partition_bytes", "fsms_per_phase", "partition"} {
		require.Contains(t, a, k)
	}
	// Two 64 B read and write ports per bank on Table V's links (ace's
	// TestSRAMPortsFollowTheLinks has the arithmetic); one when literal.
	require.Equal(t, 2.0, a["sram_read_ports_per_bank"])
	require.Equal(t, 2.0, a["sram_write_ports_per_bank"])
	code, out, errOut = runCLI("collective", "--system", "ace", "--topo", "4x2x2", "--size", "256KiB", "--format", "json", "--sram-ports", "literal", "--partition", "paper")
	require.Equal(t, 0, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	a = r["ace"].(map[string]any)
	require.Equal(t, 1.0, a["sram_read_ports_per_bank"])
	require.Equal(t, "paper", a["partition"])
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"--sram", "64KiB"}, "SRAM of 65536 bytes is too small"},
		{[]string{"--fsms", "2"}, "give 3 to 1024"},
		{[]string{"--fsms", "3"}, "use at least 4"},
		{[]string{"--comm-mem-bw", "fast"}, "--comm-mem-bw"},
		{[]string{"--comm-mem-bw", "-5GB/s"}, "positive"},
		{[]string{"--fsm-split", "random"}, "use one of latency, even"},
		{[]string{"--sram-ports", "many"}, "use derived, literal or a number"},
		{[]string{"--sram-ports", "0"}, "use derived, literal or a number"},
		{[]string{"--sram-ports", "1000"}, "ports from 1 to 64"},
		{[]string{"--partition", "even"}, "use one of little, paper"},
		{[]string{"--notice", "never"}, "use one of room, fsm"},
		{[]string{"--prefetch", "all"}, "use one of fsm, room"},
	}
	for _, tc := range tests {
		code, _, errOut := runCLI(append([]string{"collective", "--system", "ace", "--topo", "4x2x2", "--size", "256KiB"}, tc.args...)...)
		require.Equal(t, 1, code, tc.args)
		require.Contains(t, errOut, tc.msg, tc.args)
	}
}

// ACE's flags, and a figure's flags, are refused where nothing would use
// them, rather than silently ignored.
func TestFlagsThatWouldBeIgnoredAreRefused(t *testing.T) {
	requireRefused(t, 2, "--partition is for --system ace", "collective", "--system", "ideal", "--partition", "paper")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"reproduce", "fig6", "--sram-ports", "literal"}, "--sram-ports is not used by fig6"},
		{[]string{"reproduce", "fig9a", "--size", "4MiB"}, "--size is not used by fig9a"},
		{[]string{"reproduce", "fig5", "--sms", "4"}, "--sms is not used by fig5"},
		{[]string{"reproduce", "fig5", "--sram", "4MiB,8MiB"}, "take lists only with fig9a"},
	} {
		code, _, errOut := runCLI(tc.args...)
		require.Equal(t, 1, code, tc.args)
		require.Contains(t, errOut, tc.msg, tc.args)
	}
}

func TestParseBandwidth(t *testing.T) {
	for in, want := range map[string]string{"128GB/s": "128", "128 GB/s": "128", "450": "450", "12.5GBps": "25/2"} {
		r, err := units.ParseBandwidth(in)
		require.NoError(t, err, in)
		require.Equal(t, want, r.RatString(), in)
	}
}

// Every system's JSON carries the fields that put them side by side; the
// baselines read more memory per byte sent than ACE (0.5 on 4x2x2: the
// payload read once for 2 × payload sent) and keep their SMs busy.
func TestEverySystemReportsTheComparisonFields(t *testing.T) {
	for _, sys := range []string{"ideal", "ace", "baseline-nooverlap", "baseline-commopt", "baseline-compopt"} {
		code, out, errOut := runCLI("collective", "--topo", "4x2x2", "--size", "256KiB", "--system", sys, "--format", "json", "--check-data")
		require.Equal(t, 0, code, "%s: %s", sys, errOut)
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &r), sys)
		for _, f := range []string{"mem_read_bytes_per_npu", "mem_write_bytes_per_npu", "comm_sm_busy", "network_gbps_per_npu"} {
			require.Contains(t, r, f, sys)
		}
		require.Equal(t, true, r["data_ok"], sys)
		read, sent := r["mem_read_bytes_per_npu"].(float64), r["bytes_sent_per_npu"].(float64)
		switch sys {
		case "ideal":
			require.Zero(t, read)
			require.Zero(t, r["comm_sm_busy"])
		case "ace":
			require.Equal(t, 0.5, read/sent)
			require.Zero(t, r["comm_sm_busy"])
		default:
			require.Greater(t, read/sent, 1.5, sys)
			require.Positive(t, r["comm_sm_busy"], sys)
		}
	}
}

func TestReproduceCommand(t *testing.T) {
	code, out, errOut := runCLI("reproduce", "fig5", "--topos", "4x2x1", "--size", "128KiB", "--mem", "64,900", "--format", "csv")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	require.True(t, strings.HasPrefix(lines[0], "topology,comm mem GB/s,baseline GB/s"), lines[0])
	code, out, errOut = runCLI("reproduce", "fig6", "--topos", "4x2x1", "--size", "128KiB", "--sms", "1,4", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Len(t, r["rows"], 2)
	require.Contains(t, r, "sms_to_reach_90pct_of_ideal")
	code, out, _ = runCLI("reproduce", "fig6", "--topos", "4x2x1", "--size", "128KiB", "--sms", "1")
	require.Equal(t, 0, code)
	require.Contains(t, out, "paper: ≈ 6 SMs")
	code, out, errOut = runCLI("reproduce", "fig4", "--topos", "4x2x1", "--size", "8MB", "--systems", "ace", "--memory-policy", "partition")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "EmbLookup 10000")
	require.Contains(t, out, "memory policy partition")
	requireRefused(t, 1, "--memory-policy is not used by fig5", "reproduce", "fig5", "--memory-policy", "share")
	requireRefused(t, 1, "does not run communication beside compute", "reproduce", "fig4", "--systems", "baseline-nooverlap")

	requireRefused(t, 2, "fig4, fig5, fig6, sec6a, fig9a, fig9b, fig10, fig11, ccube-fig12a, ccube-fig13, blueconnect-fig3, mxnet-policies or libra-e3", "reproduce", "fig7")
	requireRefused(t, 1, "not a positive whole number", "reproduce", "fig5", "--mem", "64,x")
}

// The figures made of training runs, small: fig11's table, its averages
// beside the paper's and the compute regime above; its JSON; fig9b's table
// with the paper's back-prop figure beside acemu's; --out keeps the
// averages as summary.csv and the sweep's points; flags they do not use
// are refused.
func TestReproduceTrainingFigures(t *testing.T) {
	small := []string{"--topos", "4x2x1", "--set", "training.iterations=1"}
	code, out, errOut := runCLI(append([]string{"reproduce", "fig11", "--workloads", "dlrm", "--wide"}, small...)...)
	require.Equal(t, 0, code, errOut)
	for _, s := range []string{"dlrm: Compute: the paper's regime", "NoOverlap % of ideal", "ACE over best", "average (Section VI-C)",
		"% of ideal, baseline-commopt (mean over sizes and workloads)", "49.9", "ACE over the best baseline, dlrm mean over sizes", "1.13×",
		"ACE's effective network bandwidth over every baseline, mean", "1.44×", "measured mean", "1 iteration,"} {
		require.Contains(t, out, s)
	}
	code, out, errOut = runCLI(append([]string{"reproduce", "fig11", "--workloads", "dlrm", "--format", "json"}, small...)...)
	require.Equal(t, 0, code, errOut)
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	for _, k := range []string{"rows", "mean_fraction_of_ideal", "ace_over_best_baseline", "ace_bandwidth_over_baselines"} {
		require.Contains(t, r, k)
	}
	require.Len(t, r["rows"], 1)
	require.Len(t, r["mean_fraction_of_ideal"], 4)

	dir := t.TempDir()
	code, out, errOut = runCLI(append([]string{"reproduce", "fig9b", "--workloads", "resnet50,dlrm", "--format", "csv", "--out", dir}, small...)...)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	require.Equal(t, "workload,topology,forward %,back-prop %,paper back-prop %,whole run %,forward share of run %", lines[0])
	require.Regexp(t, `^resnet50,4x2x1,0\.0,[0-9.]+,96\.4,`, lines[1]) // the paper's back-prop figure a column of its own
	require.Regexp(t, `^dlrm,4x2x1,[0-9.]+,[0-9.]+,88\.3,`, lines[2])
	for _, f := range []string{"result.txt", "result.csv", "result.json", "fig9b.png", "fig9b.svg", "sweep/sweep.json"} {
		require.FileExists(t, filepath.Join(dir, f))
	}
	dir = t.TempDir()
	code, _, errOut = runCLI(append([]string{"reproduce", "fig11", "--workloads", "dlrm", "--out", dir}, small...)...)
	require.Equal(t, 0, code, errOut)
	sum, err := os.ReadFile(filepath.Join(dir, "summary.csv"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(sum), "average (Section VI-C),acemu,paper,difference\n"), string(sum))
	require.FileExists(t, filepath.Join(dir, "fig11.png"))

	requireRefused(t, 1, "--size is not used by fig11", "reproduce", "fig11", "--size", "4MiB")
	requireRefused(t, 1, "--systems is not used by fig9b", "reproduce", "fig9b", "--systems", "ace")
	requireRefused(t, 1, "take lists only with fig9a", "reproduce", "fig11", "--fsms", "8,16")
	requireRefused(t, 1, "--workloads is empty", "reproduce", "fig9b", "--workloads", ",")
}

// The comparator on a small ASTRA-sim workload: every system appears with
// the fields the issue names, the ideal is 100 %, the JSON is the same with
// one worker or several, and a missing or bad workload is a clear error.
func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.txt")
	wl := "DATA\n3\n" +
		"a\t-1\t20000\tNONE\t0\t20000\tNONE\t0\t20000\tALLREDUCE\t65536\t100\n" +
		"b\t-1\t20000\tNONE\t0\t20000\tNONE\t0\t20000\tALLREDUCE\t131072\t100\n" +
		"c\t-1\t20000\tNONE\t0\t20000\tNONE\t0\t20000\tALLREDUCE\t65536\t100\n"
	require.NoError(t, os.WriteFile(path, []byte(wl), 0o644))
	args := []string{"--topo", "4x2x1", "--workload", path, "--format", "json"}
	code, out1, errOut := runCLI(append(args, "--workers", "1")...)
	require.Equal(t, 0, code, errOut)
	code, out2, errOut := runCLI(append(args, "--workers", "3")...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, out1, out2, "results do not depend on the workers")
	var r struct {
		Systems []map[string]any `json:"systems"`
	}
	require.NoError(t, json.Unmarshal([]byte(out1), &r))
	require.Len(t, r.Systems, 5)
	for _, s := range r.Systems {
		for _, f := range []string{"name", "iteration_cycles", "compute_cycles", "exposed_comm_cycles", "fraction_of_ideal"} {
			require.Contains(t, s, f)
		}
		if s["name"] == "ideal" {
			require.Equal(t, 1.0, s["fraction_of_ideal"])
		}
		require.InDelta(t, s["iteration_cycles"].(float64), s["compute_cycles"].(float64)+s["exposed_comm_cycles"].(float64), 1e-6)
	}
	code, table, errOut := runCLI("--topo", "4x2x1", "--workload", path, "--systems", "ace,ideal", "--wide")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, table, "% of ideal")
	require.Contains(t, table, "tiny")
	require.Contains(t, table, "memory policy share")
	code, table, errOut = runCLI("--topo", "4x2x1", "--workload", path, "--systems", "ace,ideal", "--memory-policy", "partition")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, table, "memory policy partition")
	series := filepath.Join(t.TempDir(), "util.csv")
	code, _, errOut = runCLI("--topo", "4x2x1", "--workload", path, "--systems", "ace,ideal", "--timeseries", series)
	require.Equal(t, 0, code, errOut)
	csvText, err := os.ReadFile(series)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(csvText)), "\n")
	require.Equal(t, "cycle,ace link util %,ideal link util %", lines[0]) // in % as in the table
	require.Greater(t, len(lines), 2)
	require.True(t, strings.HasPrefix(lines[2], "1000,"), lines[2])

	requireRefused(t, 1, "--workload is empty", "--workload", "")
	requireRefused(t, 1, "neither a built-in workload", "--workload", "nosuch")
	// A flag error names the command as the user typed it, and a command
	// that exists.
	code, _, errOut = runCLI("--workload", "dlrm", "--bogus")
	require.Equal(t, 2, code)
	require.Equal(t, "acemu: unknown flag: --bogus\nRun 'acemu --help' for the flags.\n", errOut)
	// DLRM's all-to-all runs on ACE beside its all-reduces, and so do a
	// reduce-scatter and an all-gather (docs/ace-model.md, "Several kinds
	// of collective").
	code, table, errOut = runCLI("--workload", "dlrm", "--topo", "4x1x1", "--systems", "ace", "--iterations", "1")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, table, "dlrm on 4x1x1")
	rs := filepath.Join(t.TempDir(), "rs.txt")
	require.NoError(t, os.WriteFile(rs, []byte("DATA\n2\nl\t-1\t10\tNONE\t0\t10\tNONE\t0\t10\tREDUCESCATTER\t4096\t0\n"+
		"m\t-1\t10\tALLGATHER\t4096\t10\tNONE\t0\t10\tALLREDUCE\t4096\t0\n"), 0o644))
	code, table, errOut = runCLI("--workload", rs, "--topo", "4x2x1", "--systems", "ace,ideal", "--iterations", "1")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, table, "ace")
	// ACE's design point on the workload command.
	ace := []string{"--workload", path, "--topo", "4x2x1", "--systems", "ace", "--iterations", "1"}
	code, _, errOut = runCLI(append(ace, "--sram-ports", "literal", "--partition", "paper", "--notice", "fsm", "--prefetch", "room", "--sram", "8MiB", "--fsms", "20", "--ace-mem-bw", "256GB/s")...)
	require.Equal(t, 0, code, errOut)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--fsms", "2"}, "give 3 to 1024"},
		{[]string{"--sram", "64KiB"}, "too small"},
		{[]string{"--partition", "even"}, "use one of little, paper"},
		{[]string{"--ace-mem-bw", "950GB/s"}, "--ace-mem-bw"},
		{[]string{"--systems", "ideal", "--sram", "8MiB"}, "--sram is for ACE, which --systems does not include"},
		{[]string{"--memory-policy", "fair"}, "use one of share, partition"},
	} {
		code, _, errOut = runCLI(append(ace, tc.args...)...)
		require.Equal(t, 1, code, tc.args)
		require.Contains(t, errOut, tc.msg, tc.args)
	}
}

// With no arguments acemu runs its main job on the built-in default: the
// five systems on ResNet-50 over 4x8x4, folded (a few seconds).
func TestNoArgumentsRunsTheDefaultComparison(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the 128-NPU ResNet-50 comparison")
	}
	code, out, errOut := runCLI()
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "resnet50 on 4x8x4 (128 NPUs)")
	for _, s := range []string{"baseline-nooverlap", "baseline-commopt", "baseline-compopt", "ace", "ideal"} {
		require.Contains(t, out, s)
	}
	require.Contains(t, out, "one NPU simulated for all")
	// The regime, the paper beside acemu, the other regime under it (the
	// lines around the table wrapped at 100 columns).
	prose := strings.Join(strings.Fields(out), " ")
	require.Contains(t, prose, "Compute: the paper's regime (--compute paper): per-layer times of ASTRA-sim 1.0's Resnet50_DataParallel.txt")
	require.Contains(t, prose, "batch 32, as Section V states, would take ≥ 6.5 ms") // 777.6 GFLOP / 120 TFLOPS = 6.48 ms
	require.Regexp(t, `│ ace +│ +[0-9.]+ +│ +2\.0 +│ +[0-9.]+ +│ +94\.3 +│`, out)    // the paper's exposed % and % of ideal beside acemu's
	require.Regexp(t, `│ baseline-commopt +│ +[0-9.]+ +│ +31\.5 +│ +[0-9.]+ +│ +35\.3 +│ +[0-9.]+× +│ +2\.67× +│`, out)
	require.Contains(t, prose, "The roofline at batch 32 (--compute roofline")

	// In the paper's regime ACE is ahead of every baseline (Section VI-B:
	// "In all cases, ACE outperforms all baselines"); a result of the
	// mechanisms, checked, not tuned.
	code, out, errOut = runCLI("--topo", "4x8x4", "--workload", "resnet50", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var doc struct {
		Compute      string             `json:"compute"`
		SpeedupOfACE map[string]float64 `json:"speedup_of_ace"`
		Paper        map[string]any     `json:"paper"`
		OtherRegime  struct {
			Compute string `json:"compute"`
		} `json:"other_regime"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	for _, b := range []string{"baseline-nooverlap", "baseline-commopt", "baseline-compopt"} {
		require.Greater(t, doc.SpeedupOfACE[b], 1.0, b)
	}
	require.Contains(t, doc.OtherRegime.Compute, "roofline")
	require.Contains(t, doc.Paper, "ace")
}

// acemu config dump prints every parameter; the dump, given back with
// --config, gives the default output of the workload command byte for
// byte, and --set and a changed file change it.
func TestConfigDumpRoundTripsThroughTheCommands(t *testing.T) {
	code, dump, errOut := runCLI("config", "dump")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, dump, "sram: \"4MiB\"")
	path := filepath.Join(t.TempDir(), "platform.yaml")
	require.NoError(t, os.WriteFile(path, []byte(dump), 0o644))
	code, again, errOut := runCLI("config", "dump", "--config", path)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, dump, again)

	args := []string{"--topo", "4x2x1", "--workload", "../../testdata/astrasim/DLRM_HybridParallel.txt", "--iterations", "1", "--format", "json"}
	code, plain, errOut := runCLI(args...)
	require.Equal(t, 0, code, errOut)
	code, withFile, errOut := runCLI(append(args, "--config", path)...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, plain, withFile)

	code, set, errOut := runCLI(append(args, "--set", "links.inter.latency=1000")...)
	require.Equal(t, 0, code, errOut)
	require.NotEqual(t, plain, set)
	requireRefused(t, 1, "give KEY=VALUE", append(args, "--set", "ace.sram")...)
	requireRefused(t, 1, "keys under ace: ace.sram", append(args, "--set", "ace.sramm=4MiB")...)
	// The collective command takes them too; reproduce refuses what it
	// would not use.
	code, c1, errOut := runCLI("collective", "--topo", "4x2x2", "--size", "1MiB", "--format", "json", "--config", path)
	require.Equal(t, 0, code, errOut)
	code, c2, errOut := runCLI("collective", "--topo", "4x2x2", "--size", "1MiB", "--format", "json")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, c2, c1)
	code, c3, errOut := runCLI("collective", "--topo", "4x2x2", "--size", "1MiB", "--format", "json", "--set", "afi.chunk=32KiB")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, c3, `"chunk_bytes": 32768`)
	requireRefused(t, 1, "afi.chunk = 32KiB: acemu reproduce fig5 does not use it", "reproduce", "fig5", "--set", "afi.chunk=32KiB")
	requireRefused(t, 1, "ace.sram = 8MiB: acemu reproduce fig6 does not use it", "reproduce", "fig6", "--set", "ace.sram=8MiB")
	requireRefused(t, 1, "ace.mem_bw = 200GB/s: acemu reproduce fig5 does not use it", "reproduce", "fig5", "--set", "ace.mem_bw=200GB/s")
	code, mc, errOut := runCLI("microcode", "--topo", "4x1x1", "--set", "afi.chunk=128KiB")
	require.Equal(t, 0, code, errOut)
	require.NotEmpty(t, mc)
	requireRefused(t, 1, "acemu microcode does not use it", "microcode", "--topo", "4x1x1", "--set", "ace.fsms=20")
	// Every command gives its default output with the dump as --config.
	for _, cmd := range [][]string{
		{"reproduce", "fig5", "--topos", "4x2x1", "--size", "128KiB", "--mem", "64", "--format", "json"},
		{"microcode", "--topo", "4x1x1"},
		{"topology", "dump", "--topo", "4x1x1"},
	} {
		code, want, errOut := runCLI(cmd...)
		require.Equal(t, 0, code, errOut)
		code, got, errOut := runCLI(append(cmd, "--config", path)...)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, want, got, cmd)
	}
	// A named flag wins over the file.
	code, dumped, errOut := runCLI("config", "dump", "--config", path, "--set", "ace.fsms=20")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, dumped, "fsms: \"20\"")
}

// A topology read from a file, not a torus: five NPUs on a ring with one
// chord. The ring (hierarchical over all NPUs, routed), tree, double-tree
// and direct all-to-all run on it with their data checked, on the ideal
// endpoint and a baseline; ACE is refused. And the file form of a torus
// runs a tree in exactly the torus's cycles (the same links and routes).
func TestCollectivesRunOnAFileTopology(t *testing.T) {
	dir := t.TempDir()
	five := filepath.Join(dir, "five.yaml")
	var b strings.Builder
	b.WriteString("nodes: 5\nlinks:\n")
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&b, "  - {from: %d, to: %d, bandwidth: 100GB/s, latency: 50}\n", i, (i+1)%5)
		fmt.Fprintf(&b, "  - {from: %d, to: %d, bandwidth: 100GB/s, latency: 50}\n", (i+1)%5, i)
	}
	b.WriteString("  - {from: 0, to: 2, bandwidth: 25GB/s, latency: 500}\n  - {from: 2, to: 0, bandwidth: 25GB/s, latency: 500}\n")
	require.NoError(t, os.WriteFile(five, []byte(b.String()), 0o644))
	for _, sys := range []string{"ideal", "baseline-commopt", "ace"} {
		for _, args := range [][]string{{"--algorithm", "hierarchical"}, {"--algorithm", "tree"}, {"--algorithm", "double-tree"}, {"--op", "all-to-all"}} {
			code, out, errOut := runCLI(append([]string{"collective", "--topo", five, "--system", sys, "--size", "100KiB", "--check-data", "--format", "json"}, args...)...)
			require.Equal(t, 0, code, "%s %v: %s", sys, args, errOut)
			var r map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &r))
			require.Equal(t, true, r["data_ok"], "%s %v", sys, args)
			require.Equal(t, float64(5), r["npus"])
		}
	}
	requireRefused(t, 1, "no such topology file", "collective", "--topo", filepath.Join(dir, "missing.yaml"))

	code, dump, errOut := runCLI("topology", "dump", "--topo", "4x2x1")
	require.Equal(t, 0, code, errOut)
	file := filepath.Join(dir, "torus.yaml")
	require.NoError(t, os.WriteFile(file, []byte(dump), 0o644))
	cycles := func(topo string) float64 {
		code, out, errOut := runCLI("collective", "--topo", topo, "--algorithm", "tree", "--size", "256KiB", "--format", "json")
		require.Equal(t, 0, code, errOut)
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		return r["cycles"].(float64)
	}
	require.Equal(t, cycles("4x2x1"), cycles(file))
}

// acemu microcode --format table, csv and json list the same ops as the
// text listing: one row (object) per op line. 4x2x1's all-reduce runs
// three phases on NPU 0, and the rows say which NPU and phase they are of.
func TestMicrocodeFormats(t *testing.T) {
	args := []string{"microcode", "--topo", "4x2x1", "--size", "64KiB"}
	code, text, _ := runCLI(args...)
	require.Equal(t, 0, code)
	// The text listing's op lines, as the rows would say them: index, kind,
	// peer, port, data, action, step, after, forward.
	var lines [][]string
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasSuffix(f[0], ":") || f[1] != "send" && f[1] != "recv" {
			continue
		}
		row := []string{strings.TrimSuffix(f[0], ":"), f[1], "", "", "", "", "", "", "false"}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "npu":
				row[2] = v
			case "port":
				row[3] = v
			case "data":
				row[4] = v
			case "match":
				row[5] = kv
			case "reduce", "store":
				row[5] = k
			case "step":
				row[6] = v
			case "after":
				row[7] = v
			case "forward":
				row[8] = "true"
			}
		}
		lines = append(lines, row)
	}
	ops := len(lines)
	require.Positive(t, ops)

	code, out, _ := runCLI(append(args, "--format", "csv")...)
	require.Equal(t, 0, code)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, ops+1, "a header and one row per op")
	require.Equal(t, microcode.Columns, recs[0])
	for i, want := range lines {
		got := recs[i+1]
		require.Equal(t, "0", got[0], "NPU 0's listing")
		require.Equal(t, want, append(got[4:10:10], got[10:]...), "op line %d of the listing", i)
	}

	code, out, _ = runCLI(append(args, "--format", "json")...)
	require.Equal(t, 0, code)
	var doc struct {
		Sections []struct {
			NPU    int `json:"npu"`
			Phases []struct {
				Phase int               `json:"phase"`
				Ops   []json.RawMessage `json:"ops"`
			} `json:"phases"`
		} `json:"sections"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	n := 0
	for _, s := range doc.Sections {
		require.Equal(t, 0, s.NPU)
		require.Equal(t, 3, len(s.Phases), "RS local, AR vertical, AG local (a horizontal ring of one has no phase)")
		for _, p := range s.Phases {
			n += len(p.Ops)
		}
	}
	require.Equal(t, ops, n)

	code, out, _ = runCLI(append(args, "--format", "table")...)
	require.Equal(t, 0, code)
	require.Contains(t, out, "reduce-scatter on local (ring)")
	requireRefused(t, 1, `--format "xml": use text, table, csv or json`, append(args, "--format", "xml")...)
}

// acemu topology dump --format json writes a document --topo reads back
// to the same topology (its YAML dump is the same); table and csv list
// one link per row: 4x2x1 has 8 NPUs with 4 outgoing links each (local
// + and −, vertical + and −; a horizontal ring of one has none).
func TestTopologyDumpFormats(t *testing.T) {
	requireJSONReadsBack(t, []string{"topology", "dump", "--topo", "4x2x1"}, func(path string) []string {
		return []string{"topology", "dump", "--topo", path}
	})
	code, out, _ := runCLI("topology", "dump", "--topo", "4x2x1", "--format", "csv")
	require.Equal(t, 0, code)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+8*4)
	require.Equal(t, []string{"from", "to", "bandwidth", "latency_cycles"}, recs[0])
	requireRefused(t, 1, `--format "xml": use yaml, table, csv or json`, "topology", "dump", "--format", "xml")
}

// requireJSONReadsBack runs a dump command (dump) as it is and with
// --format json, reads the JSON back with the command readBack gives for
// its file, and requires the same output as the first.
func requireJSONReadsBack(t *testing.T, dump []string, readBack func(path string) []string) {
	t.Helper()
	code, want, _ := runCLI(dump...)
	require.Equal(t, 0, code)
	code, jsonOut, _ := runCLI(append(dump, "--format", "json")...)
	require.Equal(t, 0, code)
	path := filepath.Join(t.TempDir(), "dump.json")
	require.NoError(t, os.WriteFile(path, []byte(jsonOut), 0o644))
	code, again, errOut := runCLI(readBack(path)...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, again)
}

// The sweep, which takes only tori, says which commands read a topology
// file named where a torus is wanted; the comparator reads one (a missing
// one is named).
func TestTopologyFileHint(t *testing.T) {
	code, _, errOut := runCLI("--topo", "net.yaml", "--workload", "resnet50")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `--topo "net.yaml": no such topology file`)
	for _, args := range [][]string{
		{"sweep", "--topo", "net.yaml", "--workload", "resnet50"},
	} {
		code, _, errOut := runCLI(args...)
		require.Equal(t, 1, code, args)
		require.Contains(t, errOut, "a file, where a torus LxVxH is wanted", args)
		require.Contains(t, errOut, "topology files work with acemu, acemu collective and acemu topology dump", args)
	}
}

// A sweep's list flag wins over its file's list, and an error in it names
// the flag; an error in the file's list names the file.
func TestSweepListErrorsNameTheirSource(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(file, []byte("workloads: [resnet50]\ntopologies: [4x0x1]\nsystems: [ace]\n"), 0o644))
	_, _, errOut := runCLI("sweep", "--file", file)
	require.Contains(t, errOut, file+": topologies: topology \"4x0x1\"")
	_, _, errOut = runCLI("sweep", "--file", file, "--topo", "4x0x2")
	require.Contains(t, errOut, "--topo: topology \"4x0x2\"")
}

// The comparator refuses a torus too large to simulate NPU by NPU whose
// workload cannot be folded, and says why it cannot (1-byte blocks on a
// 256-ring), without building every NPU's programs first.
func TestLargeUnfoldableComparisonSaysWhy(t *testing.T) {
	code, _, errOut := runCLI("--topo", "256x256x1", "--workload", "resnet50", "--systems", "ideal")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "65536 NPUs to simulate one by one")
	require.Contains(t, errOut, "this workload cannot be folded: layer conv1: hierarchical allreduce on 256x256x1, phase 2")
}

// acemu topology dump writes dgx1 and a switch fabric as files that run:
// dgx1's file (class nvlink, lanes, and its NVLink ring as dims) runs the
// default all-reduce on its ring, and a tree all-reduce, routed, in
// exactly dgx1's cycles on every system (the same links, routes and ring
// ports), and switch:4x2's file (its 3 switches, classes tier0 and tier1,
// its leaf and spine tiers as dims) runs collectives through its switches
// with their data checked, on the ideal endpoint and on ACE, the default
// all-reduce in switch:4x2's cycles. The table form lists switch:4x2's 20
// links (8 NPU–leaf each way, 2 leaf–spine each way) with their class.
func TestDumpedSwitchFabricsAndDGX1Run(t *testing.T) {
	dir := t.TempDir()
	dump := func(topo string) string {
		code, out, errOut := runCLI("topology", "dump", "--topo", topo)
		require.Equal(t, 0, code, errOut)
		path := filepath.Join(dir, strings.ReplaceAll(topo, ":", "_")+".yaml")
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
		return path
	}
	collective := func(topo string, args ...string) map[string]any {
		code, out, errOut := runCLI(append([]string{"collective", "--topo", topo, "--size", "64KiB", "--check-data", "--format", "json"}, args...)...)
		require.Equal(t, 0, code, "%s %v: %s", topo, args, errOut)
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		require.Equal(t, true, r["data_ok"], "%s %v", topo, args)
		return r
	}
	dgx1 := dump("dgx1")
	for _, args := range [][]string{
		{"--system", "ideal"},
		{"--system", "baseline-commopt"},
		{"--system", "ace"},
		{"--algorithm", "tree"},
	} {
		want := collective("dgx1", args...)
		got := collective(dgx1, args...)
		require.Equal(t, want["cycles"], got["cycles"], "dgx1 %v", args)
		require.Equal(t, want["phases"], got["phases"], "dgx1 %v", args)
	}
	require.Equal(t, []any{"reduce-scatter on ring (ring)", "all-gather on ring (ring)"}, collective(dgx1)["phases"], "the default all-reduce on the one dimension, ring")
	sw := dump("switch:4x2")
	for _, sys := range []string{"ideal", "ace"} {
		r := collective(sw, "--system", sys)
		require.Equal(t, float64(8), r["npus"])
		require.Equal(t, collective("switch:4x2", "--system", sys)["cycles"], r["cycles"], sys)
	}
	code, out, errOut := runCLI("topology", "dump", "--topo", "switch:4x2", "--format", "csv")
	require.Equal(t, 0, code, errOut)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+20)
	require.Equal(t, []string{"from", "to", "class", "bandwidth", "latency_cycles"}, recs[0])
	require.Equal(t, []string{"8", "10", "tier1", "25GB/s", "500"}, recs[13], "leaf 0 (node 8) up to the spine (node 10)")
}

// gridFile is 8 NPUs as 2 rows of 4, each row a ring of intra links
// (port 0 to the next NPU in the row, port 1 to the previous: a 4x2x1
// torus's local ports), each column a pair joined by one inter link each
// way (port 2), with dims rows (a ring) and cols (routed).
const gridFile = "../../testdata/topo_grid_dims.yaml"

// collectiveJSON runs acemu collective with args and its data checked,
// and returns its JSON result.
func collectiveJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"collective", "--size", "64KiB", "--check-data", "--format", "json"}, args...)...)
	require.Equal(t, 0, code, "%v: %s", args, errOut)
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Equal(t, true, r["data_ok"], "%v", args)
	return r
}

// A file's dims are what --phases and --group name, on every system, with
// the data checked. 64 KiB all-reduced, each NPU sends:
//
//	rs:rows:ring, ar:cols:ring, ag:rows:ring: 3/4 · 64 KiB (49152) to
//	reduce-scatter its row, 2 · 1/2 · 16 KiB (16384) to all-reduce its
//	quarter with its column, 49152 to gather the row: 114688;
//	the default all-reduce is the same phases (rs on the first
//	dimension, ar on the others, ag on the first);
//	--group rows (by name or short name, in any case): a reduce-scatter
//	and an all-gather round each ring of 4, 2 · 3/4 · 64 KiB = 98304, on
//	the same links and ports as a 4x2x1 torus's local rings, so in its
//	cycles.
//
// A 4x4x1 torus's dump with dims rows and cols (its local and vertical
// rings, every member's first link to each neighbour its port) runs the
// phases in the torus's cycles: 3/4 · 64 KiB + 2 · 3/4 · 16 KiB +
// 3/4 · 64 KiB = 122880 bytes each.
func TestFileDimsRunCollectives(t *testing.T) {
	grid := gridFile
	phases := []any{"reduce-scatter on rows (ring)", "all-reduce on cols (ring)", "all-gather on rows (ring)"}
	for _, sys := range []string{"ideal", "baseline-commopt", "ace"} {
		t.Run(sys, func(t *testing.T) {
			r := collectiveJSON(t, "--topo", grid, "--system", sys, "--phases", "rs:rows:ring,ar:cols:ring,ag:rows:ring")
			require.Equal(t, phases, r["phases"])
			require.Equal(t, float64(114688), r["bytes_sent_per_npu"])
			def := collectiveJSON(t, "--topo", grid, "--system", sys)
			require.Equal(t, phases, def["phases"])
			require.Equal(t, r["cycles"], def["cycles"])

			torus := collectiveJSON(t, "--topo", "4x2x1", "--system", sys, "--group", "local")
			for _, g := range []string{"rows", "R"} {
				r := collectiveJSON(t, "--topo", grid, "--system", sys, "--group", g)
				require.Equal(t, []any{"reduce-scatter on rows (ring)", "all-gather on rows (ring)"}, r["phases"], g)
				require.Equal(t, float64(98304), r["bytes_sent_per_npu"], g)
				require.Equal(t, torus["cycles"], r["cycles"], g)
			}
		})
	}

	code, out, errOut := runCLI("topology", "dump", "--topo", "4x4x1")
	require.Equal(t, 0, code, errOut)
	out += "dims:\n  - {name: rows, ring: true, groups: [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]}\n" +
		"  - {name: cols, ring: true, groups: [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]}\n"
	file := filepath.Join(t.TempDir(), "grid16.yaml")
	require.NoError(t, os.WriteFile(file, []byte(out), 0o644))
	for _, sys := range []string{"ideal", "baseline-commopt", "ace"} {
		r := collectiveJSON(t, "--topo", file, "--system", sys, "--phases", "rs:rows:ring,ar:cols:ring,ag:rows:ring")
		torus := collectiveJSON(t, "--topo", "4x4x1", "--system", sys, "--phases", "rs:local:ring,ar:vertical:ring,ag:local:ring")
		require.Equal(t, float64(122880), r["bytes_sent_per_npu"], sys)
		require.Equal(t, torus["cycles"], r["cycles"], sys)
	}
}

// A topology file's dims that collectives cannot use, or that the file
// cannot have, are refused, naming the file and the dimension.
func TestFileDimsRefusedByTheCLI(t *testing.T) {
	grid := gridFile
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--phases", "rs:local:ring,ag:local:ring"}, `dimension "local" is not rows or cols`},
		{[]string{"--group", "all"}, `group dimension "all" is not rows or cols`},
	} {
		code, _, errOut := runCLI(append([]string{"collective", "--topo", grid}, tc.args...)...)
		require.Equal(t, 1, code, "%v", tc.args)
		require.Contains(t, errOut, tc.msg, "%v", tc.args)
	}
	data, err := os.ReadFile(grid)
	require.NoError(t, err)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	for _, tc := range []struct{ from, to, msg string }{
		{"[[0, 4], [1, 5], [2, 6], [3, 7]]", "[[0, 4], [1, 5], [2, 6], [3]]", bad + ": dimension cols: group 3 has 1 NPUs, group 0 has 2"},
		{"name: cols", "name: Rows", bad + `: dimension Rows: "Rows" is already dimension rows's name`},
		{"[[0, 1, 2, 3], [4, 5, 6, 7]]", "[[0, 2, 1, 3], [4, 5, 6, 7]]", bad + ": dimension rows: group 0 is a ring, but NPU 0 has no link to NPU 2"},
	} {
		require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(string(data), tc.from, tc.to, 1)), 0o644))
		code, _, errOut := runCLI("collective", "--topo", bad)
		require.Equal(t, 1, code, tc.to)
		require.Contains(t, errOut, tc.msg)
	}
}

// One default whatever else is given: --workload is resnet50 and --topo
// 4x8x4 (the main job's), so `acemu --format json` is the main job in
// JSON, and --workload alone runs on 4x8x4. (One system, one iteration:
// the defaults are what is checked.)
func TestDefaultsDoNotMove(t *testing.T) {
	cheap := []string{"--systems", "ideal", "--iterations", "1", "--other-regime=false"}
	for _, args := range [][]string{append([]string{"--format", "json"}, cheap...), append([]string{"--workload", "dlrm", "--format", "json"}, cheap...)} {
		code, out, errOut := runCLI(args...)
		require.Equal(t, 0, code, errOut)
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		require.Equal(t, "4x8x4", r["topology"], args)
		if args[0] == "--format" {
			require.Equal(t, "resnet50", r["workload"])
		}
	}
}
