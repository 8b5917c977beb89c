package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acemu/acemu/capture"
	"github.com/acemu/acemu/fabric"
	"github.com/google/gopacket"
	"github.com/google/gopacket/pcapgo"
	"github.com/stretchr/testify/require"
	"github.com/vbauerster/mpb/v8"
)

// countCapture reads a capture file back through the gopacket layer and
// counts its packets.
func countCapture(t *testing.T, path string) int {
	n := 0
	for range subSteps(t, path) {
		n++
	}
	return n
}

// subSteps reads a capture file back through the gopacket layer and
// returns each packet's sending sub-step.
func subSteps(t *testing.T, path string) []uint8 {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	require.NoError(t, err)
	var subs []uint8
	for p := range gopacket.NewPacketSource(r, r.LinkType()).Packets() {
		h, ok := p.Layer(capture.LayerType).(*capture.Header)
		require.True(t, ok)
		subs = append(subs, h.SubStep)
	}
	return subs
}

// A capture says which of ACE's sub-steps sent each packet: on a ring
// all-reduce, the reduce-scatter's first step sends from SRAM and its
// later steps forward what they received, reduced; the ideal endpoint has
// no sub-steps.
func TestACaptureNamesTheSendingSubStep(t *testing.T) {
	dir := t.TempDir()
	count := func(system string) map[uint8]int {
		path := filepath.Join(dir, system+".pcap")
		code, _, errOut := runCLI("collective", "--system", system, "--topo", "4x1x1", "--size", "64KiB", "--full", "--pcap", path)
		require.Equal(t, 0, code, errOut)
		n := map[uint8]int{}
		for _, s := range subSteps(t, path) {
			n[s]++
		}
		return n
	}
	ace := count("ace")
	require.Positive(t, ace[fabric.SubSend])
	require.Positive(t, ace[fabric.SubForward])
	require.Zero(t, ace[fabric.SubNone])
	ideal := count("ideal")
	require.Equal(t, []uint8{fabric.SubNone}, slices.Collect(maps.Keys(ideal)))
}

// decodesTrace checks that a --trace file is trace-event JSON.
func decodesTrace(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc), path)
	require.NotEmpty(t, doc["traceEvents"], path)
}

// --pcap, --trace and --links write their files and change nothing the
// command prints but its count of simulator events, the engine's work and
// not a result: an observed link at an ACE keeps the arrival and transmit
// events an unobserved one spares (docs/performance.md, "ACE's arrivals,
// transmits and sub-step ends without events"); with several systems
// each gets its own file.
func TestOutputFilesLeaveTheOutputAlone(t *testing.T) {
	dir := t.TempDir()
	pcap := func(t *testing.T, path string) { require.Positive(t, countCapture(t, path), path) }
	links := func(t *testing.T, path string) {
		rows := readLinks(t, path)
		require.NotEmpty(t, rows, path)
		for _, l := range rows {
			require.NotEmpty(t, l.peak, path)
		}
	}
	collective := []string{"collective", "--topo", "4x2x2", "--size", "1MiB"}
	compare := []string{"--workload", "dlrm", "--topo", "4x2x1", "--systems", "ideal,ace", "--iterations", "1"}
	for _, tc := range []struct {
		args  []string
		flag  string
		files []string
		check func(*testing.T, string)
	}{
		{append(collective, "--full"), "--pcap", []string{"run.pcap"}, pcap},
		{append(collective, "--system", "ace"), "--pcap", []string{"run.pcap"}, pcap},
		{compare, "--pcap", []string{"run.ideal.pcap", "run.ace.pcap"}, pcap},
		{append(collective, "--system", "ace"), "--trace", []string{"run.json"}, decodesTrace},
		{compare, "--trace", []string{"run.ideal.json", "run.ace.json"}, decodesTrace},
		{collective, "--links", []string{"run.csv"}, links},
		{append(collective, "--full", "--system", "ace"), "--links", []string{"run.csv"}, links},
		{compare, "--links", []string{"run.ideal.csv", "run.ace.csv"}, links},
		{append(compare, "--format", "json"), "--links", []string{"run.ideal.csv", "run.ace.csv"}, links},
	} {
		code, plain, _ := runCLI(tc.args...)
		require.Equal(t, 0, code)
		code, written, errOut := runCLI(append(slices.Clone(tc.args), tc.flag, filepath.Join(dir, tc.files[0][:3]+filepath.Ext(tc.files[0])))...)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, resultOf(t, plain), resultOf(t, written), "%v %s", tc.args, tc.flag)
		for _, f := range tc.files {
			tc.check(t, filepath.Join(dir, f))
		}
	}
}

// resultOf is a command's output without its count of simulator events
// (canonicalJSON, withoutEvents).
func resultOf(t *testing.T, out string) string {
	if strings.HasPrefix(out, "{") {
		_, b, err := canonicalJSON([]byte(out))
		require.NoError(t, err)
		return string(b)
	}
	b, err := withoutEvents([]byte(out))
	require.NoError(t, err)
	return string(b)
}

func TestPcapErrors(t *testing.T) {
	requireRefused(t, 1, `--pcap-filter: packet filter term "npu=a"`, "collective", "--topo", "4x1x1", "--pcap", filepath.Join(t.TempDir(), "x.pcap"), "--pcap-filter", "npu=a")
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	requireRefused(t, 1, "--pcap: mkdir "+file+": not a directory", "--workload", "dlrm", "--topo", "4x1x1", "--pcap", filepath.Join(file, "dir", "x.pcap"))
}

// acemu collective --trace draws the collective, issue to completion,
// on the collectives lane as the comparator draws its collectives: one
// async slice from cycle 0 to the run's last, named by its operation and
// size.
func TestACollectivesTraceHasItsCollective(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	code, out, errOut := runCLI("collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--format", "json", "--trace", path)
	require.Equal(t, 0, code, errOut)
	var rep struct{ Cycles int64 }
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []struct {
			Name, Cat, Ph, ID string
			Ts                float64
			Pid, Tid          int
			Args              map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	var got []string
	for _, e := range doc.TraceEvents {
		if e.Cat == "collective" {
			got = append(got, fmt.Sprintf("%s %s id %s at %.4f on %d/%d", e.Ph, e.Name, e.ID, e.Ts, e.Pid, e.Tid))
		}
	}
	require.Equal(t, []string{"b allreduce 1048576 B id 0 at 0.0000 on 0/2", fmt.Sprintf("e allreduce 1048576 B id 0 at %.4f on 0/2", float64(rep.Cycles)/1245)}, got)
}

// --trace creates its file's directory, as --out and --plot create
// theirs (and every other output flag its file's: TestOutputsMakeTheirDirectory).
func TestTraceCreatesItsDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces", "today", "run.json")
	code, _, errOut := runCLI("collective", "--topo", "4x1x1", "--size", "64KiB", "--trace", path)
	require.Equal(t, 0, code, errOut)
	decodesTrace(t, path)
	code, _, errOut = runCLI("--workload", "dlrm", "--topo", "4x1x1", "--systems", "ideal,ace", "--iterations", "1", "--trace", filepath.Join(filepath.Dir(path), "more", "run.json"))
	require.Equal(t, 0, code, errOut)
	decodesTrace(t, filepath.Join(filepath.Dir(path), "more", "run.ace.json"))
	decodesTrace(t, filepath.Join(filepath.Dir(path), "more", "run.ideal.json"))
}

func TestTraceErrors(t *testing.T) {
	dir := t.TempDir()
	requireRefused(t, 1, "one NPU, NPU 0, stands for all in this run; --full simulates every NPU", "collective", "--topo", "4x2x2", "--size", "1MiB", "--trace", filepath.Join(dir, "x.json"), "--trace-npus", "3")
	requireRefused(t, 1, "want NPU numbers from 0 to 15", "collective", "--topo", "4x2x2", "--size", "1MiB", "--full", "--trace", filepath.Join(dir, "x.json"), "--trace-npus", "16")
}

// Progress bars appear only on a terminal: a file (or a pipe, or CI's
// log) gets none.
func TestNoProgressBarsOffATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer f.Close()
	require.Nil(t, newProgressBars(f, []string{"ace"}, barsQueued))
	require.Nil(t, newProgressBars(&bytes.Buffer{}, []string{"ace"}, barsQueued))
}

// --plot draws the comparison's figures and changes nothing it prints.
func TestPlotLeavesTheOutputAlone(t *testing.T) {
	args := []string{"--workload", "dlrm", "--topo", "4x2x1", "--systems", "ideal,ace", "--iterations", "1"}
	_, plain, _ := runCLI(args...)
	dir := filepath.Join(t.TempDir(), "figures")
	code, drawn, errOut := runCLI(append(args, "--plot", dir)...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, plain, drawn)
	for _, f := range []string{"utilization.png", "utilization.svg", "breakdown.png", "breakdown.svg"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		require.Positive(t, st.Size(), f)
	}
}

// --out writes the results in every format, each what --format prints (a
// figure's table without the part of the report acemu reproduce NAME
// prints after it), and the platform configuration used, which --config
// reads back to the same results; --format csv prints the table's rows.
func TestOutWritesEveryArtifact(t *testing.T) {
	for _, tc := range []struct{ args, params []string }{
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace"}, []string{"--sram", "2MiB"}},
		{[]string{"--workload", "dlrm", "--topo", "4x2x1", "--systems", "ideal,ace"}, []string{"--iterations", "1", "--fsms", "8"}},
		{[]string{"reproduce", "fig6", "--topos", "4x2x2", "--size", "1MiB", "--sms", "2,8"}, nil}, // it takes no platform parameter
	} {
		args := append(slices.Clone(tc.args), tc.params...)
		dir := t.TempDir()
		code, table, errOut := runCLI(append(slices.Clone(args), "--out", dir)...)
		require.Equal(t, 0, code, errOut)
		for format, file := range map[string]string{"table": "result.txt", "csv": "result.csv", "json": "result.json"} {
			code, printed, errOut := runCLI(append(slices.Clone(args), "--format", format)...)
			require.Equal(t, 0, code, errOut)
			written, err := os.ReadFile(filepath.Join(dir, file))
			require.NoError(t, err)
			if format == "table" {
				require.Equal(t, table, printed)
			}
			if format == "table" && tc.args[0] == "reproduce" {
				// acemu reproduce NAME prints its part of the report after
				// the table, which result.txt does not hold (NAME --report
				// writes it, as report.md).
				var ok bool
				printed, _, ok = strings.Cut(printed, "\n"+reportPartLead)
				require.True(t, ok, printed)
			}
			require.Equal(t, printed, string(written), "%v %s", args, file)
			if format == "csv" {
				rows, err := csv.NewReader(strings.NewReader(printed)).ReadAll()
				require.NoError(t, err)
				require.Greater(t, len(rows), 1)
			}
		}
		// The parameters given as flags are in the configuration written.
		code, again, errOut := runCLI(append(slices.Clone(tc.args), "--config", filepath.Join(dir, "platform.yaml"))...)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, table, again, "%v with --config of the platform written", args)
		if tc.params != nil {
			code, without, _ := runCLI(tc.args...)
			require.Equal(t, 0, code)
			require.NotEqual(t, table, without, "%v: the parameters %v change the results", tc.args, tc.params)
		}
	}
}

// acemu config dump --format json writes what --config reads back to the
// same platform; table and csv list every parameter with its unit and
// source.
func TestConfigDumpFormats(t *testing.T) {
	requireJSONReadsBack(t, []string{"config", "dump", "--set", "ace.sram=8MiB"}, func(path string) []string {
		return []string{"config", "dump", "--config", path}
	})
	code, csvOut, _ := runCLI("config", "dump", "--format", "csv")
	require.Equal(t, 0, code)
	rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"key", "value", "unit", "source"}, rows[0])
	require.Contains(t, rows, []string{"ace.sram", "4MiB", "bytes", "Table IV (4 × 1 MB)"})
	requireRefused(t, 1, `--format "xml": use yaml, table, csv or json`, "config", "dump", "--format", "xml")
}

// A flag for a file not asked for is refused, not ignored, and a refused
// run leaves no --out directory behind.
func TestOutputFlagsWithoutTheirFile(t *testing.T) {
	requireRefused(t, 1, "--pcap-filter is for --pcap", "collective", "--topo", "4x1x1", "--pcap-filter", "npu=0")
	requireRefused(t, 1, "--trace-npus is for --trace", "--workload", "dlrm", "--topo", "4x1x1", "--trace-npus", "all")
	dir := filepath.Join(t.TempDir(), "out")
	requireRefused(t, 1, `--format "xml"`, "collective", "--topo", "4x1x1", "--out", dir, "--format", "xml")
	requireRefused(t, 1, `--format "xml"`, "--workload", "dlrm", "--topo", "4x1x1", "--out", dir, "--format", "xml")
	require.NoDirExists(t, dir)
}

// --out puts a relative --timeseries file in its directory, as it does
// --pcap and --trace.
func TestOutPutsTheTimeseriesInItsDirectory(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCLI("--workload", "dlrm", "--topo", "4x1x1", "--systems", "ideal", "--iterations", "1", "--out", dir, "--timeseries", "util.csv")
	require.Equal(t, 0, code, errOut)
	require.FileExists(t, filepath.Join(dir, "util.csv"))
}

// Ctrl-C ends the bars from its own goroutine while the run's end may be
// ending them too: they end once, and neither call, nor a progress
// update after them, waits forever.
func TestProgressBarsEndOnce(t *testing.T) {
	var buf bytes.Buffer
	pb := startBars(&buf, time.Hour, []string{"a"}, barsQueued)
	pb.update("a", 1, 4)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pb.finish()
		}()
	}
	wg.Wait()
	pb.finish()
	pb.update("a", 2, 4)
	var none *progressBars
	none.finish()
}

// What a bar says beside it: "waiting" before its first update (a
// system queued for a worker), the share done with, after a second, the
// time left at the pace so far, and "done" at its total.
func TestProgressBarStatus(t *testing.T) {
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		started     time.Time
		done, total int64
		at          time.Duration // after start
		want        string
	}{
		{"not started", time.Time{}, 0, 0, 0, "waiting"},
		{"started, no total yet", start, 0, 0, time.Second, "  0 %"},
		{"started, nothing done", start, 0, 1000, time.Second, "  0 %"},
		{"a tenth in its first half second: no forecast yet", start, 100, 1000, time.Second / 2, " 10 %"},
		{"a quarter in 10 s", start, 250, 1000, 10 * time.Second, " 25 % ETA 30s"},
		{"most of it in 90 s", start, 900, 1000, 90 * time.Second, " 90 % ETA 10s"},
		{"done", start, 1000, 1000, time.Minute, "done"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &progressBar{started: tc.started, done: tc.done, total: tc.total}
			require.Equal(t, tc.want, b.status(start.Add(tc.at)))
		})
	}
}

// syncBuffer is a buffer the bars' goroutines write while a test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The bars are drawn while the run goes on, a queued system's as
// "waiting" and a finished one's as "done", and removed when it ends:
// the last thing written moves the cursor back over them and erases
// them, so the results follow no stale bars.
func TestProgressBarsAreRemovedAtTheEnd(t *testing.T) {
	var out syncBuffer
	pb := startBars(&out, 0, []string{"ace", "ideal", "baseline"}, barsQueued, mpb.WithAutoRefresh(), mpb.WithRefreshRate(5*time.Millisecond))
	pb.update("ace", 500, 1000)
	pb.update("ideal", 1000, 1000)
	require.Eventually(t, func() bool {
		s := out.String()
		return strings.Contains(s, "waiting") && strings.Contains(s, "done") && strings.Contains(s, " 50 %")
	}, 5*time.Second, 5*time.Millisecond)
	pb.finish()
	// Each frame starts by erasing the one before (cursor up its lines,
	// erase below); the last thing written erases the last frame drawn.
	// (The bars stop one by one: that frame may hold only some of them.)
	s := out.String()
	clear := regexp.MustCompile(`\x1b\[(\d+)A\x1b\[J`)
	all := clear.FindAllStringSubmatchIndex(s, -1)
	require.NotEmpty(t, all, "%q", s)
	last, from := all[len(all)-1], 0 // the last frame: from the clear before it
	if len(all) > 1 {
		from = all[len(all)-2][1]
	}
	require.Equal(t, len(s), last[1], "something written after the bars were erased: %q", s)
	lines := strings.Count(s[from:last[0]], "\n")
	require.Equal(t, strconv.Itoa(lines), s[last[2]:last[3]], "the last frame's %d lines are not all erased: %q", lines, s)
}
