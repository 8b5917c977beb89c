package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/acemu/acemu/topology"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// readPerLayerCSV reads a --per-layer CSV file back as rows, each cell by
// its column's name; the header must be perLayerHeader.
func readPerLayerCSV(t *testing.T, b []byte) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	require.Equal(t, perLayerHeader, recs[0])
	var rows []map[string]string
	for _, r := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = r[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// cell is a row's integer column.
func cell(t *testing.T, row map[string]string, col string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(row[col], 10, 64)
	require.NoError(t, err, "%s in %v", col, row)
	return v
}

// perPass is what a --per-layer file says one system's iteration took:
// its compute per pass, its exposed communication, and its collectives.
type perPass struct {
	compute             train.Breakdown
	exposed             int64
	collectives         int
	bytes               int64
	endOfBackProp, rest int64 // exposed at the end of back-prop, and elsewhere
}

// sumPerLayer adds a --per-layer file's rows up by system and iteration.
func sumPerLayer(t *testing.T, rows []map[string]string) map[string][]perPass {
	t.Helper()
	sums := map[string][]perPass{}
	for _, r := range rows {
		s := r["system"]
		i := int(cell(t, r, "iteration"))
		for len(sums[s]) < i {
			sums[s] = append(sums[s], perPass{})
		}
		p := &sums[s][i-1]
		c := cell(t, r, "compute_cycles")
		switch r["pass"] {
		case "forward":
			p.compute.Forward += c
		case "input-gradient":
			p.compute.InGrad += c
		case "weight-gradient":
			p.compute.WtGrad += c
		case "update":
			p.compute.Update += c
		default:
			require.Contains(t, []string{"end-of-back-prop", "end-of-run"}, r["pass"])
			require.Zero(t, c, "%v", r)
			require.Equal(t, "-1", r["layer"], "%v", r)
		}
		e := cell(t, r, "exposed_comm_cycles")
		p.exposed += e
		if r["pass"] == "end-of-back-prop" {
			p.endOfBackProp += e
		} else {
			p.rest += e
		}
		if r["collective"] != "" {
			p.collectives++
			p.bytes += cell(t, r, "collective_bytes")
			require.Positive(t, cell(t, r, "collective_latency_cycles"), "%v", r)
		} else {
			require.Equal(t, "0", r["collective_bytes"], "%v", r)
			require.Empty(t, r["collective_latency_cycles"], "%v", r)
		}
	}
	return sums
}

// The per-layer results add up to the run's, exactly, per system and
// iteration: the compute pass by pass (train.Metrics.Compute), the
// exposed communication, the collectives and their bytes; the JSON file
// holds the same rows as the CSV; and the file written by the command
// adds up to the totals the command prints.
func TestPerLayerAddsUpToTheRun(t *testing.T) {
	for _, tc := range []struct {
		name, workload, compute string
		memory                  contend.Policy
	}{
		{"DLRM, the paper's times, share", "dlrm", workload.ComputeAuto, contend.Share},
		{"DLRM, the paper's times, partition", "dlrm", workload.ComputeAuto, contend.Partition},
		{"DLRM on the roofline (updates as work)", "dlrm", workload.ComputeRoofline, contend.Share},
		{"ResNet-50 on the roofline", "resnet50", workload.ComputeRoofline, contend.Share},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shape, err := torus.Parse("4x2x1")
			require.NoError(t, err)
			batch := int64(0)
			if tc.workload == "resnet50" {
				batch = 1
			}
			w, err := workload.Resolve(tc.workload, tc.compute, batch)
			require.NoError(t, err)
			var ss []systems.System
			for _, n := range systems.Names()[:5] {
				s, err := systems.Lookup(n)
				require.NoError(t, err)
				ss = append(ss, s)
			}
			rep, err := compare.Run(compare.Options{Machine: topology.Torus(shape), Workload: w, Systems: ss, Memory: tc.memory, KeepMetrics: true,
				Library: platform.Default().Library}) // what the command runs
			require.NoError(t, err)
			b, err := encodePerLayer(rep, "csv")
			require.NoError(t, err)
			rows := readPerLayerCSV(t, b)
			sums := sumPerLayer(t, rows)
			require.Len(t, sums, len(ss))
			for _, s := range rep.Systems {
				m := s.Metrics
				require.Len(t, sums[s.Name], len(m.Iterations), s.Name)
				for i, it := range m.Iterations {
					got := sums[s.Name][i]
					require.Equal(t, it.Compute, got.compute, "%s iteration %d: compute per pass", s.Name, i+1)
					require.Equal(t, it.ComputeCycles, got.compute.Total(), "%s iteration %d: compute", s.Name, i+1)
					require.Equal(t, it.ExposedCommCycles, got.exposed, "%s iteration %d: exposed", s.Name, i+1)
					require.Equal(t, it.Collectives, got.collectives, "%s iteration %d: collectives", s.Name, i+1)
					require.Equal(t, it.CollectiveBytes, got.bytes, "%s iteration %d: bytes", s.Name, i+1)
				}
			}

			// The JSON file: the same rows.
			js, err := encodePerLayer(rep, "json")
			require.NoError(t, err)
			var doc perLayerDoc
			require.NoError(t, json.Unmarshal(js, &doc))
			require.Equal(t, rep.Workload, doc.Workload)
			require.Len(t, doc.Rows, len(rows))
			var keys struct {
				Rows []map[string]any `json:"rows"`
			}
			require.NoError(t, json.Unmarshal(js, &keys))
			for _, r := range keys.Rows {
				require.ElementsMatch(t, perLayerHeader, slices.Collect(maps.Keys(r)), "a JSON row's keys are the CSV's columns")
			}
			for i, r := range doc.Rows {
				got := r.csv()
				for j, h := range perLayerHeader {
					require.Equal(t, rows[i][h], got[j], "row %d, %s", i, h)
				}
			}

			// The command: its file adds up to the totals it prints.
			path := filepath.Join(t.TempDir(), "pl.csv")
			args := []string{"--workload", tc.workload, "--topo", "4x2x1", "--compute", tc.compute, "--memory-policy", tc.memory.String(), "--other-regime=false", "--format", "json"}
			if batch != 0 {
				args = append(args, "--batch", strconv.FormatInt(batch, 10))
			}
			code, out, errOut := runCLI(append(args, "--per-layer", path)...)
			require.Equal(t, 0, code, errOut)
			var printed compare.Report
			require.NoError(t, json.Unmarshal([]byte(out), &printed))
			written, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, string(b), string(written), "the command writes what the comparison gives")
			for _, s := range printed.Systems {
				var compute, exposed int64
				for i, p := range sums[s.Name] {
					compute += p.compute.Total()
					exposed += p.exposed
					require.Equal(t, s.PerIteration[i], p.compute.Total()+p.exposed, "%s iteration %d", s.Name, i+1)
				}
				require.Equal(t, s.TotalCompute, compute, s.Name)
				require.Equal(t, s.TotalExposedComm, exposed, s.Name)
			}
		})
	}
}

// A hand-worked case: two layers of an ASTRA-sim file (times in ns, no
// shapes) on a 4x1x1 torus, two iterations, on the ideal system and
// BaselineNoOverlap, both of which compute on the whole NPU with nothing
// beside it (ideal's communication takes no SMs nor memory; no overlap
// runs no compute under a collective).
//
// A time t with no shape runs at the ridge (docs/astrasim-workloads.md):
// alone on the whole NPU it takes ⌈t × 1245/1000 × 1⌉ cycles, and a
// microsecond is 1245 cycles.
//
//	a: forward 1000 ns → 1245 cycles (1 µs); input gradient 999 ns,
//	   never run (layer 0); weight gradient 600 → 747 (0.6 µs), all-reduce
//	   of 65536 B; update 200 → 249 (0.2 µs).
//	b: forward 2000 → 2490 (2 µs); input gradient 400 → 498 (0.4 µs);
//	   weight gradient 1200 → 1494 (1.2 µs), all-reduce of 131072 B;
//	   update 333 → ⌈414.585⌉ = 415 (415/1245 = 0.3333 µs → 0.333).
//
// Iteration 1 runs a, b forward, b's weight and input gradients, a's
// weight gradient; iteration 2 the same with each layer's update before its
// forward pass. Ideal issues each all-reduce after its weight gradient;
// a's is issued as iteration 1 ends, and a's update is the first thing
// iteration 2 does, so it waits exactly the all-reduce's latency.
// BaselineNoOverlap issues one all-reduce of 65536 + 131072 = 196608 B at
// the end of back-prop and waits for all of it, nothing at the layers.
func TestPerLayerHandWorked(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "two.txt")
	require.NoError(t, os.WriteFile(file, []byte("DATA\n2\n"+
		"a\t-1\t1000\tNONE\t0\t999\tNONE\t0\t600\tALLREDUCE\t65536\t200\n"+
		"b\t-1\t2000\tNONE\t0\t400\tNONE\t0\t1200\tALLREDUCE\t131072\t333\n"), 0o644))
	path := filepath.Join(dir, "pl.csv")
	code, _, errOut := runCLI("--workload", file, "--topo", "4x1x1", "--systems", "ideal,baseline-nooverlap", "--iterations", "2", "--per-layer", path)
	require.Equal(t, 0, code, errOut)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	rows := readPerLayerCSV(t, b)

	type want struct {
		iteration, layer  string
		name, pass        string
		compute, us       string
		collective, bytes string
	}
	iteration := func(it string, update bool) []want {
		var w []want
		if update {
			w = append(w, want{it, "0", "a", "update", "249", "0.2", "", "0"})
		}
		w = append(w, want{it, "0", "a", "forward", "1245", "1", "", "0"})
		if update {
			w = append(w, want{it, "1", "b", "update", "415", "0.333", "", "0"})
		}
		return append(w,
			want{it, "1", "b", "forward", "2490", "2", "", "0"},
			want{it, "1", "b", "weight-gradient", "1494", "1.2", "ALLREDUCE", "131072"},
			want{it, "1", "b", "input-gradient", "498", "0.4", "", "0"},
			want{it, "0", "a", "weight-gradient", "747", "0.6", "ALLREDUCE", "65536"})
	}
	unfused := func(w []want) []want { // no overlap: the all-reduces are fused
		for i := range w {
			w[i].collective, w[i].bytes = "", "0"
		}
		return w
	}
	end := func(it, pass, collective, bytes string) want {
		return want{it, "-1", "", pass, "0", "0", collective, bytes}
	}
	var wants []want
	wants = append(wants, iteration("1", false)...)
	wants = append(wants, iteration("2", true)...)
	wants = append(wants, end("2", "end-of-run", "", "0"))
	ideal := len(wants)
	wants = append(wants, unfused(iteration("1", false))...)
	wants = append(wants, end("1", "end-of-back-prop", "ALLREDUCE", "196608"))
	wants = append(wants, unfused(iteration("2", true))...)
	wants = append(wants, end("2", "end-of-back-prop", "ALLREDUCE", "196608"), end("2", "end-of-run", "", "0"))

	require.Len(t, rows, len(wants))
	for i, w := range wants {
		r := rows[i]
		system := "ideal"
		if i >= ideal {
			system = "baseline-nooverlap"
		}
		require.Equal(t, []string{system, w.iteration, w.layer, w.name, w.pass, w.compute, w.us, w.collective, w.bytes},
			[]string{r["system"], r["iteration"], r["layer"], r["layer_name"], r["pass"], r["compute_cycles"], r["compute_us"], r["collective"], r["collective_bytes"]}, "row %d", i)
	}
	// Ideal: a's update in iteration 2 waits for all of a's all-reduce of
	// iteration 1 (row 4), and nothing else in iteration 1 waits.
	require.Equal(t, rows[4]["collective_latency_cycles"], rows[5]["exposed_comm_cycles"])
	require.Positive(t, cell(t, rows[5], "exposed_comm_cycles"))
	for _, r := range rows[:5] {
		require.Equal(t, "0", r["exposed_comm_cycles"], "%v", r)
	}
	// No overlap: the only waits are the fused all-reduces, each its whole
	// latency.
	for _, r := range rows[ideal:] {
		if r["pass"] == "end-of-back-prop" {
			require.Equal(t, r["collective_latency_cycles"], r["exposed_comm_cycles"], "%v", r)
			require.Positive(t, cell(t, r, "exposed_comm_cycles"))
		} else {
			require.Equal(t, "0", r["exposed_comm_cycles"], "%v", r)
		}
	}
}

// The file is the same byte for byte across runs, GOMAXPROCS and
// --workers, in both formats.
func TestPerLayerIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, ext := range []string{"csv", "json"} {
		var first []byte
		for _, procs := range []int{1, 2, 4} {
			runtime.GOMAXPROCS(procs)
			for _, workers := range []string{"1", "0"} {
				path := filepath.Join(dir, fmt.Sprintf("pl-%d-%s.%s", procs, workers, ext))
				code, _, errOut := runCLI("--workload", "dlrm", "--topo", "4x2x1", "--workers", workers, "--per-layer", path)
				require.Equal(t, 0, code, errOut)
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				if first == nil {
					first = b
					continue
				}
				require.Equal(t, string(first), string(b), "GOMAXPROCS %d, --workers %s, .%s", procs, workers, ext)
			}
		}
	}
}

// A --per-layer file acemu cannot write, or that would overwrite another
// output or an input, is refused before the run, and leaves the input as
// it was.
func TestPerLayerBadPaths(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.csv") // an extension --per-layer takes, to reach the check

	input := "DATA\n1\na\t-1\t100\tNONE\t0\t100\tNONE\t0\t100\tALLREDUCE\t1024\t0\n"
	require.NoError(t, os.WriteFile(wl, []byte(input), 0o644))
	cfg := filepath.Join(dir, "platform.json")
	code, dump, errOut := runCLI("config", "dump", "--format", "json")
	require.Equal(t, 0, code, errOut)
	require.NoError(t, os.WriteFile(cfg, []byte(dump), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d.csv"), 0o755))
	run := []string{"--workload", "dlrm", "--topo", "4x1x1", "--systems", "ideal", "--iterations", "1"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown extension", []string{"--per-layer", filepath.Join(dir, "x.txt")}, `--per-layer ` + filepath.Join(dir, "x.txt") + `: unknown extension ".txt"; name a .csv or a .json file`},
		{"no extension", []string{"--per-layer", filepath.Join(dir, "x")}, "the file has no extension, which chooses its format; name a .csv or a .json file"},
		{"directory that cannot be made", []string{"--per-layer", filepath.Join(wl, "dir", "x.csv")}, "--per-layer: mkdir " + wl + ": not a directory"},
		{"a directory", []string{"--per-layer", filepath.Join(dir, "d.csv")}, "is a directory; name a file"},
		{"the --timeseries file", []string{"--per-layer", filepath.Join(dir, "s.csv"), "--timeseries", filepath.Join(dir, "s.csv")}, "--timeseries and --per-layer name the same file"},
		{"the --trace file", []string{"--per-layer", filepath.Join(dir, "t.json"), "--trace", filepath.Join(dir, "t.json")}, "--per-layer and --trace name the same file"},
		{"--out's result.csv", []string{"--out", filepath.Join(dir, "out"), "--per-layer", "result.csv"}, "--out's result.csv and --per-layer name the same file"},
		{"the --config file", []string{"--config", cfg, "--per-layer", cfg}, "--config and --per-layer name the same file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(append(append([]string{}, run...), tc.args...)...)
			require.Equal(t, 1, code, errOut)
			require.Contains(t, errOut, tc.want)
		})
	}
	// The inputs, named as --per-layer: refused, and left as they were.
	requireRefused(t, 1, "--workload and --per-layer name the same file, "+wl+"; acemu never writes over an input: give --per-layer another path", "--workload", wl, "--topo", "4x1x1", "--per-layer", wl)
	got, err := os.ReadFile(wl)
	require.NoError(t, err)
	require.Equal(t, input, string(got))
	got, err = os.ReadFile(cfg)
	require.NoError(t, err)
	require.Equal(t, dump, string(got))
	// Nor may --out write over the configuration it wrote before, read
	// back as --config: it may be a user's, commented, and is refused,
	// left as it was, with nothing written.
	out := filepath.Join(dir, "again")
	code, _, errOut = runCLI(append(append([]string{}, run...), "--out", out)...)
	require.Equal(t, 0, code, errOut)
	before, err := os.ReadFile(filepath.Join(out, "platform.yaml"))
	require.NoError(t, err)
	code, _, errOut = runCLI(append(append([]string{}, run...), "--out", out, "--config", filepath.Join(out, "platform.yaml"), "--per-layer", "layers.csv")...)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "--config and --out's platform.yaml name the same file")
	require.NoFileExists(t, filepath.Join(out, "layers.csv"))
	got, err = os.ReadFile(filepath.Join(out, "platform.yaml"))
	require.NoError(t, err)
	require.Equal(t, before, got)
	// A refused path creates nothing.
	require.NoFileExists(t, filepath.Join(dir, "x.txt"))
	require.NoFileExists(t, filepath.Join(dir, "x"))
}
