package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/acemu/acemu/topology"
	"github.com/stretchr/testify/require"
)

// linkRow is one row of a --links file, its numbers parsed.
type linkRow struct {
	id, src, dst, port int
	class              string
	switchEnd          bool
	bytes, packets     int64
	busy, util         float64
	peak               string // empty when windows are not tracked
}

// readLinks reads a --links file back: its header is linksHeader and
// every cell but the class and the peak a number.
func readLinks(t *testing.T, path string) []linkRow {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	require.Equal(t, linksHeader, recs[0])
	var rows []linkRow
	for _, r := range recs[1:] {
		num := func(i int) int64 {
			n, err := strconv.ParseInt(r[i], 10, 64)
			require.NoError(t, err, "%s: column %s of %v", path, linksHeader[i], r)
			return n
		}
		real := func(i int) float64 {
			v, err := strconv.ParseFloat(r[i], 64)
			require.NoError(t, err, "%s: column %s of %v", path, linksHeader[i], r)
			return v
		}
		if r[10] != "" {
			p := real(10)
			require.True(t, p >= 0 && p <= 100, "%s: peak %v %%", path, p)
		}
		require.Contains(t, []string{"0", "1"}, r[5])
		rows = append(rows, linkRow{id: int(num(0)), src: int(num(1)), dst: int(num(2)), port: int(num(3)), class: r[4], switchEnd: r[5] == "1",
			bytes: num(6), packets: num(7), busy: real(8), util: real(9), peak: r[10]})
	}
	return rows
}

// collectiveWithLinks runs acemu collective with args and --links, and
// returns its JSON report and the file's rows.
func collectiveWithLinks(t *testing.T, args ...string) (map[string]any, []linkRow) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "links.csv")
	code, out, errOut := runCLI(append([]string{"collective", "--format", "json", "--links", path}, args...)...)
	require.Equal(t, 0, code, errOut)
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	return r, readLinks(t, path)
}

// The bytes on the NPUs' own links add up to what every NPU sent. A ring
// all-reduce of 64 KiB on 4x1x1 sends half the data each way round the
// ring: 2 × (4−1)/4 × 32768 = 49152 B, 192 packets of 256 B, on each of
// the 8 links, 393216 B in all = 98304 B per NPU × 4. On switch:4x2 each
// NPU has one link, to its leaf: the hierarchical all-reduce of 64 KiB
// sends 3/4 × 65536 = 49152 B in the leaf's reduce-scatter, 2 × 1/2 ×
// 16384 = 16384 B in the spine's all-reduce and 49152 B in the leaf's
// all-gather, 114688 B (448 packets) per NPU, 917504 B over the 8 NPUs;
// the 12 switch links (8 down to the NPUs, 4 between the tiers) are
// left out of the sum.
func TestLinksAddUpToTheBytesSent(t *testing.T) {
	for _, tc := range []struct {
		name           string
		args           []string
		rows, npuLinks int
		perLink, total int64
		switchEnd      bool
		packets        int64 // per NPU link
	}{
		{"ring 4x1x1", []string{"--topo", "4x1x1", "--algorithm", "ring", "--size", "64KiB", "--full"}, 8, 8, 49152, 393216, false, 192},
		{"switch:4x2", []string{"--topo", "switch:4x2", "--size", "64KiB"}, 20, 8, 114688, 917504, true, 448},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, rows := collectiveWithLinks(t, tc.args...)
			npus := int(r["npus"].(float64))
			require.Len(t, rows, tc.rows)
			var sum int64
			n := 0
			for i, l := range rows {
				require.Equal(t, i, l.id)
				require.Equal(t, tc.switchEnd, l.switchEnd)
				if l.src >= npus { // a switch's link
					continue
				}
				n++
				require.Equal(t, tc.perLink, l.bytes, "link %d", l.id)
				require.Equal(t, tc.packets, l.packets, "link %d", l.id)
				require.NotEmpty(t, l.peak, "link %d: --links tracks windows", l.id)
				sum += l.bytes
			}
			require.Equal(t, tc.npuLinks, n)
			require.Equal(t, tc.total, sum)
			require.Equal(t, float64(tc.total), r["bytes_sent_per_npu"].(float64)*float64(npus))
		})
	}
}

// Each group of links' mean utilisation, worked out from the file (busy
// cycles summed over the group's rows, over rows × cycles), is what acemu
// collective reports for it: a torus's dimensions, each NPU link by its
// port's, folded (NPU 0's 6 links, standing for all) and in full (every
// NPU's 6 of 4x2x2), and a switch fabric's links as one group, "all".
func TestLinksMeansAreTheReportsUtilisation(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		rows   int
		folded bool
	}{
		{[]string{"--topo", "4x2x2", "--size", "1MiB"}, 6, true},
		{[]string{"--topo", "4x2x2", "--size", "1MiB", "--full"}, 96, false},
		{[]string{"--topo", "4x2x2", "--size", "1MiB", "--system", "ace"}, 6, true},
		{[]string{"--topo", "switch:4x2", "--size", "64KiB"}, 20, false},
	} {
		r, rows := collectiveWithLinks(t, tc.args...)
		require.Len(t, rows, tc.rows, "%v", tc.args)
		require.Equal(t, tc.folded, r["folded"], "%v", tc.args)
		spec, err := topology.Parse(tc.args[1])
		require.NoError(t, err)
		m := spec.Machine
		busy, count := map[string]float64{}, map[string]int{}
		for _, l := range rows {
			if tc.folded {
				require.Equal(t, 0, l.src, "a folded run's file holds NPU 0's links")
			}
			label := "all"
			if m.PortLabels != nil && l.src < m.N() && l.port < len(m.PortLabels) {
				label = m.PortLabels[l.port]
			}
			busy[label] += l.busy
			count[label]++
		}
		cycles := r["cycles"].(float64)
		reported := r["link_utilization"].(map[string]any)
		require.Len(t, busy, len(reported), "%v", tc.args)
		for label, b := range busy {
			require.InDelta(t, reported[label].(float64), b/(float64(count[label])*cycles), 1e-9, "%v: %s", tc.args, label)
		}
	}
}

// --links naming a directory, a path that cannot be created or another
// output's file is refused before the run.
func TestLinksErrors(t *testing.T) {
	dir := t.TempDir()
	collective := []string{"collective", "--topo", "4x1x1", "--size", "64KiB"}
	compare := []string{"--workload", "dlrm", "--topo", "4x1x1", "--iterations", "1"}
	x, cfg := filepath.Join(dir, "x.csv"), filepath.Join(dir, "platform.yaml")
	require.NoError(t, os.WriteFile(cfg, nil, 0o644)) // the default platform
	for _, tc := range []struct {
		msg  string
		args []string
	}{
		{"--links: create " + dir + ": is a directory; name a file", append(collective, "--links", dir)},
		{"--links: mkdir " + cfg + ": not a directory", append(collective, "--links", filepath.Join(cfg, "dir", "x.csv"))},
		{"--links: mkdir " + cfg + ": not a directory", append(compare, "--links", filepath.Join(cfg, "x.csv"))},
		{"--pcap and --links name the same file", append(collective, "--pcap", x, "--links", x)},
		{"--trace and --links name the same file", append(collective, "--trace", x, "--links", x)},
		{"--timeseries and --links name the same file", append(compare, "--systems", "ideal", "--timeseries", x, "--links", x)},
		{"--trace (for ideal) and --links (for ideal) name the same file", append(compare, "--systems", "ideal,ace", "--trace", x, "--links", x)},
		{"--out's result.csv and --links name the same file", append(collective, "--out", dir, "--links", "result.csv")},
		{"--config and --links name the same file", append(collective, "--config", cfg, "--links", cfg)},
		{"--microcode and --links name the same file", append(collective, "--microcode", x, "--links", x)},
	} {
		requireRefused(t, 1, tc.msg, tc.args...)
	}
	require.NoFileExists(t, x)
}

// The comparator's --links files agree with its report, system by system:
// the links' busy cycles over links × the run's cycles are its mean link
// utilisation, and no window of the network is busier than the busiest
// link's busiest window (a window's share of the network is the mean of
// its links' shares in it).
func TestComparatorLinksAreTheReportsUtilisation(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI("--workload", "dlrm", "--topo", "4x2x1", "--systems", "ideal,ace", "--iterations", "1", "--format", "json",
		"--links", filepath.Join(dir, "links.csv"))
	require.Equal(t, 0, code, errOut)
	var r struct {
		Folded  bool `json:"folded"`
		Systems []struct {
			Name   string  `json:"name"`
			Cycles float64 `json:"total_cycles"`
			Mean   float64 `json:"mean_link_utilization"`
			Peak   float64 `json:"peak_link_utilization"`
		} `json:"systems"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.True(t, r.Folded)
	require.Len(t, r.Systems, 2)
	for _, s := range r.Systems {
		rows := readLinks(t, filepath.Join(dir, "links."+s.Name+".csv"))
		require.Len(t, rows, 4, "4x2x1 folded: NPU 0's 2 local and 2 vertical links")
		busy, peak := 0.0, 0.0
		for _, l := range rows {
			require.Zero(t, l.src)
			busy += l.busy
			p, err := strconv.ParseFloat(l.peak, 64)
			require.NoError(t, err)
			peak = max(peak, p)
		}
		require.InDelta(t, s.Mean, busy/(float64(len(rows))*s.Cycles), 1e-9, s.Name)
		require.GreaterOrEqual(t, peak+1e-4, 100*s.Peak, s.Name) // the file in %
	}
}
