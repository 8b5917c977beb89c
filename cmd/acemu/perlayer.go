package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// perLayerFormat is the format of a --per-layer file, chosen by its
// extension: "csv" or "json", or an error naming the problem and the fix.
func perLayerFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".csv", ".json":
		return ext[1:], nil
	case "":
		return "", fmt.Errorf("--per-layer %s: the file has no extension, which chooses its format; name a .csv or a .json file", path)
	default:
		return "", fmt.Errorf("--per-layer %s: unknown extension %q; name a .csv or a .json file (the extension chooses the format)", path, ext)
	}
}

// perLayerRow is one row of a --per-layer file: one pass of one layer of
// one system in one iteration (docs/cli.md, "Per-layer results").
type perLayerRow struct {
	System            string   `json:"system"`
	Iteration         int      `json:"iteration"`
	Layer             int      `json:"layer"`
	LayerName         string   `json:"layer_name"`
	Pass              string   `json:"pass"`
	ComputeCycles     int64    `json:"compute_cycles"`
	ComputeUs         float64  `json:"compute_us"`
	ExposedCommCycles int64    `json:"exposed_comm_cycles"`
	ExposedCommUs     float64  `json:"exposed_comm_us"`
	Collective        string   `json:"collective"`
	CollectiveBytes   int64    `json:"collective_bytes"`
	LatencyCycles     *int64   `json:"collective_latency_cycles"`
	LatencyUs         *float64 `json:"collective_latency_us"`
}

// perLayerHeader is the CSV header, the rows' JSON names in order.
var perLayerHeader = []string{"system", "iteration", "layer", "layer_name", "pass",
	"compute_cycles", "compute_us", "exposed_comm_cycles", "exposed_comm_us",
	"collective", "collective_bytes", "collective_latency_cycles", "collective_latency_us"}

// perLayerDoc is a --per-layer JSON file.
type perLayerDoc struct {
	Workload string        `json:"workload"`
	Topology string        `json:"topology"`
	NPUs     int           `json:"npus"`
	ClockHz  int64         `json:"clock_hz"`
	Rows     []perLayerRow `json:"rows"`
}

// micros is c cycles in microseconds at the NPU's clock, rounded to the
// nanosecond.
func micros(c int64) float64 {
	return float64(rtl.Cycle(c).TimeIn(1_000_000_000)) / 1e3
}

// perLayerRows are the rows of rep, whose systems kept their metrics
// (compare.Options.KeepMetrics): system by system in the report's order,
// iteration by iteration, and in each the passes in the order the loop
// ran them.
func perLayerRows(rep *compare.Report) ([]perLayerRow, error) {
	var rows []perLayerRow
	for _, s := range rep.Systems {
		if s.Metrics == nil {
			return nil, fmt.Errorf("%s: no per-layer metrics kept", s.Name)
		}
		for i, it := range s.Metrics.Iterations {
			for _, lp := range it.Layers {
				r := perLayerRow{System: s.Name, Iteration: i + 1, Layer: lp.Layer, LayerName: lp.LayerName, Pass: passName(lp),
					ComputeCycles: lp.ComputeCycles, ComputeUs: micros(lp.ComputeCycles),
					ExposedCommCycles: lp.ExposedCommCycles, ExposedCommUs: micros(lp.ExposedCommCycles)}
				if lp.Collective != workload.CommNone {
					lat, us := lp.CollectiveCycles, micros(lp.CollectiveCycles)
					r.Collective, r.CollectiveBytes, r.LatencyCycles, r.LatencyUs = lp.Collective.String(), lp.CollectiveBytes, &lat, &us
				}
				rows = append(rows, r)
			}
		}
	}
	return rows, nil
}

// passName names a row's pass: a forward pass run again by a
// recomputation (train.LayerPass.Instance) as "forward (recomputed)", a
// concurrent MICRO collective's repeat by its number.
func passName(lp train.LayerPass) string {
	switch {
	case lp.Instance == 0:
		return lp.Pass.String()
	case lp.Pass == train.PassForward:
		return lp.Pass.String() + " (recomputed)"
	}
	return fmt.Sprintf("%s (%d)", lp.Pass, lp.Instance+1)
}

// encodePerLayer is rep's per-layer results in format ("csv" or "json").
func encodePerLayer(rep *compare.Report, format string) ([]byte, error) {
	rows, err := perLayerRows(rep)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if format == "json" {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		err := enc.Encode(perLayerDoc{Workload: rep.Workload, Topology: rep.Topology, NPUs: rep.NPUs, ClockHz: rtl.ClockHz, Rows: rows})
		return b.Bytes(), err
	}
	w := csv.NewWriter(&b)
	_ = w.Write(perLayerHeader)
	for _, r := range rows {
		_ = w.Write(r.csv())
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// csv is the row's CSV record, in perLayerHeader's order: integers, the
// microseconds as short as they are exact, empty latencies for no
// collective.
func (r perLayerRow) csv() []string {
	num := func(v int64) string { return strconv.FormatInt(v, 10) }
	us := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	lat, latUs := "", ""
	if r.LatencyCycles != nil {
		lat, latUs = num(*r.LatencyCycles), us(*r.LatencyUs)
	}
	return []string{r.System, strconv.Itoa(r.Iteration), strconv.Itoa(r.Layer), r.LayerName, r.Pass,
		num(r.ComputeCycles), us(r.ComputeUs), num(r.ExposedCommCycles), us(r.ExposedCommUs),
		r.Collective, num(r.CollectiveBytes), lat, latUs}
}

// writePerLayer writes rep's per-layer results into f, created at path
// before the run (so that a path that cannot be written fails at once),
// and closes it; on a failure f is aborted, leaving no file.
func writePerLayer(f *outfile.File, path string, rep *compare.Report, format string) (err error) {
	b, werr := encodePerLayer(rep, format)
	if werr == nil {
		_, werr = f.Write(b)
	}
	closeOutput(f, "--per-layer", path, werr, &err)
	return err
}
