package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/spf13/pflag"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/verify"
)

// collectiveReport is the JSON form of one collective run.
type collectiveReport struct {
	Topology          string             `json:"topology"`
	NPUs              int                `json:"npus"`
	Op                string             `json:"op"`
	Algorithm         string             `json:"algorithm"`
	System            string             `json:"system"`
	PayloadBytes      int64              `json:"payload_bytes"`
	ChunkBytes        int64              `json:"chunk_bytes"`
	MessageBytes      int64              `json:"message_bytes"`
	Chunks            int                `json:"chunks"`
	Cycles            int64              `json:"cycles"`
	TimeUs            float64            `json:"time_us"`
	BytesSentPerNPU   int64              `json:"bytes_sent_per_npu"`
	NetworkGBpsPerNPU float64            `json:"network_gbps_per_npu"`
	BoundGBpsPerNPU   float64            `json:"bound_gbps_per_npu"`
	LinkUtilization   map[string]float64 `json:"link_utilization"`
	Events            uint64             `json:"events"`
	TraceHash         string             `json:"trace_hash,omitempty"`
}

type collectiveOpts struct {
	topo, op, algorithm, system, size, chunk, message, format string
	traceHash                                                 bool
}

func runCollective(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("collective", pflag.ContinueOnError)
	var o collectiveOpts
	fs.StringVar(&o.topo, "topo", "4x4x4", "torus shape LxVxH: L NPUs per package ring, V×H packages")
	fs.StringVar(&o.op, "op", "allreduce", "collective: allreduce")
	fs.StringVar(&o.algorithm, "algorithm", "hierarchical", "algorithm: hierarchical (RS local, AR vertical, AR horizontal, AG local; ring in each phase, both directions)")
	fs.StringVar(&o.system, "system", "ideal", "endpoint: ideal (a received message is processed in 1 cycle, no memory cost)")
	fs.StringVar(&o.size, "size", "64MiB", "collective size per NPU (KiB/MiB/GiB are powers of 1024, KB/MB/GB of 1000)")
	fs.StringVar(&o.chunk, "chunk", "64KiB", "initial chunk size, the unit of pipelining (Table III)")
	fs.StringVar(&o.message, "message", "8KiB", "largest message (Table V)")
	fs.StringVar(&o.format, "format", "table", "output: table or json")
	fs.BoolVar(&o.traceHash, "trace-hash", false, "also print a hash of the full packet trace (for determinism checks)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: acemu collective [flags]\n\nSimulate one collective on the 3D torus and report time and bandwidth.\n\nFlags:\n%s", fs.FlagUsages())
	}
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	rep, err := simulateCollective(o)
	if err != nil {
		fmt.Fprintf(stderr, "acemu collective: %v\n", err)
		return 1
	}
	if err := writeCollective(stdout, o.format, rep); err != nil {
		fmt.Fprintf(stderr, "acemu collective: %v\n", err)
		return 1
	}
	return 0
}

func simulateCollective(o collectiveOpts) (*collectiveReport, error) {
	shape, err := torus.Parse(o.topo)
	if err != nil {
		return nil, err
	}
	if o.op != "allreduce" {
		return nil, fmt.Errorf("--op %q: this build knows allreduce", o.op)
	}
	if o.algorithm != "hierarchical" {
		return nil, fmt.Errorf("--algorithm %q: this build knows hierarchical", o.algorithm)
	}
	if o.system != "ideal" {
		return nil, fmt.Errorf("--system %q: this build knows ideal", o.system)
	}
	if o.format != "table" && o.format != "json" {
		return nil, fmt.Errorf("--format %q: use table or json", o.format)
	}
	size, err := parseSize(o.size)
	if err != nil {
		return nil, fmt.Errorf("--size: %w", err)
	}
	chunk, err := parseSize(o.chunk)
	if err != nil {
		return nil, fmt.Errorf("--chunk: %w", err)
	}
	msg, err := parseSize(o.message)
	if err != nil {
		return nil, fmt.Errorf("--message: %w", err)
	}
	if n := (size + chunk - 1) / chunk; n > 1<<22 {
		return nil, fmt.Errorf("--size %s in --chunk %s pieces is %d chunks; use a larger chunk or a smaller size (at most %d chunks)", o.size, o.chunk, n, 1<<22)
	}
	plan, err := collectives.NewPlan(collectives.Config{Shape: shape, Op: collectives.OpAllReduce, MessageBytes: msg}, "hierarchical", size, chunk)
	if err != nil {
		return nil, err
	}
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, shape, torus.DefaultLinks())
	if err != nil {
		return nil, err
	}
	var tr *fabric.HashTracer
	if o.traceHash {
		tr = fabric.NewHashTracer()
		net.SetTracer(tr)
	}
	res, err := npu.RunIdeal(k, net, plan, npu.DefaultIdeal())
	if err != nil {
		return nil, err
	}
	rep := &collectiveReport{
		Topology: shape.String(), NPUs: shape.N(), Op: o.op, Algorithm: o.algorithm, System: o.system,
		PayloadBytes: size, ChunkBytes: chunk, MessageBytes: msg, Chunks: plan.NumChunks(),
		Cycles: int64(res.Cycles), BytesSentPerNPU: res.MeanBytesSent(), Events: res.Events,
		LinkUtilization: map[string]float64{},
	}
	secs := float64(res.Cycles) / rtl.ClockHz
	rep.TimeUs = secs * 1e6
	if res.Cycles > 0 {
		rep.NetworkGBpsPerNPU = float64(rep.BytesSentPerNPU) / secs / 1e9
	}
	rep.BoundGBpsPerNPU, _ = verify.HierarchicalAllReduceBound(shape).Float64()
	for _, u := range torus.LinkUtilization(shape, net, res.Cycles) {
		rep.LinkUtilization[u.Dim.String()] = u.Share
	}
	if tr != nil {
		rep.TraceHash = fmt.Sprintf("%016x", tr.Sum())
	}
	return rep, nil
}

func writeCollective(w io.Writer, format string, r *collectiveReport) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	t := tablewriter.NewWriter(w)
	t.Header("quantity", "value")
	rows := [][]string{
		{"topology", fmt.Sprintf("%s (%d NPUs)", r.Topology, r.NPUs)},
		{"collective", fmt.Sprintf("%s, %s, %s endpoint", r.Op, r.Algorithm, r.System)},
		{"payload per NPU", fmt.Sprintf("%d B in %d chunks of ≤ %d B, messages ≤ %d B", r.PayloadBytes, r.Chunks, r.ChunkBytes, r.MessageBytes)},
		{"time", fmt.Sprintf("%d cycles (%.3f µs at 1245 MHz)", r.Cycles, r.TimeUs)},
		{"bytes sent per NPU", fmt.Sprintf("%d (%.4f × payload)", r.BytesSentPerNPU, float64(r.BytesSentPerNPU)/float64(r.PayloadBytes))},
		{"network bandwidth per NPU", fmt.Sprintf("%.2f GB/s (analytical bound %.2f GB/s, %.1f %%)", r.NetworkGBpsPerNPU, r.BoundGBpsPerNPU, 100*r.NetworkGBpsPerNPU/r.BoundGBpsPerNPU)},
	}
	for _, d := range []torus.Dim{torus.Local, torus.Vertical, torus.Horizontal} {
		if u, ok := r.LinkUtilization[d.String()]; ok {
			rows = append(rows, []string{d.String() + " link utilisation", fmt.Sprintf("%.1f %%", 100*u)})
		}
	}
	rows = append(rows, []string{"simulation events", fmt.Sprint(r.Events)})
	if r.TraceHash != "" {
		rows = append(rows, []string{"packet trace hash", r.TraceHash})
	}
	for _, row := range rows {
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}
