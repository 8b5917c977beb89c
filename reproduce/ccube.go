package reproduce

import (
	"fmt"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/topology"
)

// CCubeOptions chooses the C-Cube paper's communication-only comparison
// ("Logical/Physical Topology-Aware Collective Communication in Deep Learning
// Training", Section V-B, Fig. 12(a)): the overlapped double tree (C1) against
// the conventional one (B), both on the paper's two trees with their detours,
// on the DGX-1 (dgx1), all-reduces of several sizes.
type CCubeOptions struct {
	Sizes []int64 // bytes per GPU; default 1, 4, 16 and 64 MiB
	// BaselineSMs and MemGBps are what the SM-driven baseline gives
	// communication (default every SM and all the memory: the collective
	// runs alone).
	BaselineSMs int
	MemGBps     int64
	ACE         ace.Config
	// Links are the platform's links.* keys (LinkKeys): the runs' links
	// take them.
	Links    map[string]string
	Workers  int
	Progress func(done, total int)
	// Keep is where its runs are kept.
	Keep Keep
}

// DefaultCCube is the comparison at the paper's 64 MB and below.
func DefaultCCube() CCubeOptions {
	return CCubeOptions{Sizes: []int64{1 << 20, 4 << 20, 16 << 20, 64 << 20}, BaselineSMs: 80, MemGBps: npu.MemoryGBps, ACE: ace.Default()}
}

// CCubeRow is one size on one endpoint, in one way of cutting the
// all-reduce into chunks.
type CCubeRow struct {
	Size     int64    `json:"size_bytes"`
	Endpoint Endpoint `json:"endpoint"`
	// Chunk is the chunk the all-reduce was cut into: the whole buffer
	// (the paper's one-shot all-reduce, pipelined through the trees in
	// 8 KiB pieces) or the platform's 64 KiB (chunks in flight at once,
	// as acemu's training issues them; ACE's only way, its SRAM holding
	// chunks).
	Chunk int64 `json:"chunk_bytes"`
	// B and C1 are the cycles of the conventional and the overlapped
	// double tree; Gain is B / C1 − 1, the paper's "improvement".
	B    int64   `json:"b_cycles"`
	C1   int64   `json:"c1_cycles"`
	Gain float64 `json:"c1_gain_over_b"`
	// Model is the gain the paper's own model predicts for a one-shot
	// all-reduce (Section III-B, Eqs. (3), (5) and (7): 2(D+K−1) steps
	// against 2D+K−1, each step α + βN/K, so the ratio does not depend on
	// α and β) at acemu's depth D (hops from root to the farthest leaf,
	// a detour's two) and pieces per tree K; 0 for chunked rows.
	Model float64 `json:"model_gain,omitempty"`
}

// CCubePaper are the paper's figures the rows sit beside (Section V-B,
// Fig. 12(a)): C1 over B, communication only, on the DGX-1. Size is the
// all-reduce's, 0 where the paper names none; its "64MB" is read as the
// 64 MiB its sizes double to (docs/cli.md, "Figures").
var CCubePaper = []struct {
	What string
	Size int64
	Gain float64
}{
	{"64 MB", 64 << 20, 0.75},
	{"larger than 64 MB, up to", 0, 0.80},
}

// CCubeTrainingPaper are the paper's training gains over B (Section V-B,
// Fig. 13: "C1 provides 10% performance improvement on average, and up
// to 20%"; CC "approximately 32% improvement on average (and up to
// 61%)"), over its workloads, batch sizes and bandwidths; the paper gives
// C2 and R no figure over B.
var CCubeTrainingPaper = []struct {
	Config    string
	Mean, Max float64
}{
	{"C1", 0.10, 0.20},
	{"CC", 0.32, 0.61},
}

// CCube runs the comparison: per size, the ideal endpoint and the
// SM-driven baseline with the all-reduce as one chunk and as 64 KiB
// chunks, and ACE with 64 KiB chunks; each B and C1.
func CCube(o CCubeOptions) ([]CCubeRow, error) {
	if len(o.Sizes) == 0 || o.BaselineSMs < 1 || o.MemGBps < 1 {
		return nil, fmt.Errorf("ccube: need sizes, SMs and memory bandwidth")
	}
	var rows []CCubeRow
	for _, size := range o.Sizes {
		if size < 1 {
			return nil, fmt.Errorf("ccube: size %d B: give at least one byte", size)
		}
		for _, r := range []struct {
			CCubeRow
			chunked bool
		}{
			{CCubeRow{Size: size, Endpoint: Ideal, Chunk: size}, false},
			{CCubeRow{Size: size, Endpoint: Baseline, Chunk: size}, false},
			{CCubeRow{Size: size, Endpoint: Ideal, Chunk: collectives.DefaultChunkBytes}, true},
			{CCubeRow{Size: size, Endpoint: Baseline, Chunk: collectives.DefaultChunkBytes}, true},
			{CCubeRow{Size: size, Endpoint: ACE, Chunk: collectives.DefaultChunkBytes}, false},
		} {
			if r.chunked && size <= r.Chunk {
				continue // one chunk of the platform's is the one-shot row
			}
			r.Chunk = min(r.Chunk, size)
			rows = append(rows, r.CCubeRow)
		}
	}
	var specs []Spec
	for _, r := range rows {
		for _, alg := range []string{"double-tree", "double-tree-overlapped"} {
			s := Spec{Topo: "dgx1", Size: r.Size, Endpoint: r.Endpoint, Algorithm: alg, Chunk: r.Chunk, Links: o.Links}
			switch r.Endpoint {
			case Baseline:
				s.CommSMs, s.CommMemGBps = o.BaselineSMs, o.MemGBps
			case ACE:
				s.CommMemGBps, s.ACE = o.MemGBps, o.ACE
			}
			specs = append(specs, s)
		}
	}
	pts, err := RunKept(specs, o.Workers, o.Progress, o.Keep)
	if err != nil {
		return nil, err
	}
	depth, err := DGX1TreeDepth()
	if err != nil {
		return nil, err
	}
	for i := range rows {
		r := &rows[i]
		r.B, r.C1 = pts[2*i].Cycles, pts[2*i+1].Cycles
		r.Gain = float64(r.B)/float64(r.C1) - 1
		if r.Chunk == r.Size && r.Endpoint != ACE {
			msg := int64(collectives.DefaultMessageBytes)
			k := ((r.Size+1)/2 + msg - 1) / msg // each tree's half in messages (Table V, 8 KiB)
			r.Model = float64(2*(depth+k-1))/float64(2*depth+k-1) - 1
		}
	}
	return rows, nil
}

// DGX1TreeDepth is the hops from a root of dgx1's trees to its farthest
// leaf, an edge between GPUs with no NVLink counted by its route's hops
// (a detour's two): 4 for the C-Cube paper's trees (0 → 4 → (0) → 2 → 1).
func DGX1TreeDepth() (int64, error) {
	spec, err := topology.Parse("dgx1")
	if err != nil {
		return 0, err
	}
	m := spec.Machine
	hops := func(a, b int) (int64, error) {
		n := int64(0)
		for cur := a; cur != b; n++ {
			port, ok := m.Topology.NextPort(cur, b)
			next, linked, _ := m.Ports.Neighbor(cur, port)
			if !ok || !linked || n > int64(m.N()) {
				return 0, fmt.Errorf("dgx1: no route from GPU %d to GPU %d", a, b)
			}
			cur = next
		}
		return n, nil
	}
	var depth int64
	for _, parent := range m.Trees {
		for n := range parent {
			var d int64
			for x := n; parent[x] >= 0; x = parent[x] {
				h, err := hops(parent[x], x)
				if err != nil {
					return 0, err
				}
				d += h
			}
			depth = max(depth, d)
		}
	}
	return depth, nil
}

// CCubeTrainingOptions chooses the training comparison.
type CCubeTrainingOptions struct {
	Workloads []string // built-in names; default resnet50
	// Systems are the endpoints each configuration trains on (default the
	// SM-driven baseline-commopt, the paper's GPUs, and ACE, which runs
	// the same trees in its own chunks: its SRAM holds chunks).
	Systems []string
	// Platform is the platform the runs take (the collectives'
	// algorithm aside, which each configuration sets); nil: the default.
	Platform *platform.Platform
	Workers  int
	// Progress, if set, is told how many of the runs have finished.
	Progress func(done, total int)
	// Keep is where its runs are kept.
	Keep Keep
}

// CCubeTrainingRow is one configuration of one workload on one system.
type CCubeTrainingRow struct {
	Workload string `json:"workload"`
	System   string `json:"system"`
	Config   string `json:"config"`
	// Cycles is one iteration in the steady state, the second of three
	// (it waits for the first's all-reduce and leaves its own to the
	// third); Gain is the throughput over the same system's B: B's cycles
	// / these − 1.
	Cycles int64   `json:"cycles"`
	Gain   float64 `json:"gain_over_b"`
	Whole  bool    `json:"one_chunk"`
}

// CCubeTraining trains each workload on dgx1 under each configuration, on
// each system, in the platform's compute regime.
func CCubeTraining(o CCubeTrainingOptions) ([]CCubeTrainingRow, error) {
	if len(o.Workloads) == 0 {
		o.Workloads = []string{"resnet50"}
	}
	if len(o.Systems) == 0 {
		o.Systems = []string{"baseline-commopt", "ace"}
	}
	p := platform.Default()
	if o.Platform != nil {
		p = *o.Platform
	}
	spec, err := topology.Parse("dgx1")
	if err != nil {
		return nil, err
	}
	if _, err := compare.PlatformSystems(o.Systems, p); err != nil { // refused before any run
		return nil, fmt.Errorf("ccube: %w", err)
	}
	for _, wl := range o.Workloads {
		if _, err := compare.PlatformWorkload(p, wl); err != nil {
			return nil, fmt.Errorf("ccube: %w", err)
		}
	}
	type job struct {
		wl, sys string
		cfg     compare.CCubeConfig
	}
	var jobs []job
	for _, wl := range o.Workloads {
		for _, sys := range o.Systems {
			for _, c := range compare.CCubeConfigs {
				jobs = append(jobs, job{wl, sys, c})
			}
		}
	}
	dump, err := p.Dump()
	if err != nil {
		return nil, err
	}
	desc := struct {
		Platform string     `json:"platform"`
		Jobs     [][]string `json:"jobs"`
	}{Platform: string(dump)}
	for _, j := range jobs {
		desc.Jobs = append(desc.Jobs, []string{j.wl, j.sys, j.cfg.Name, j.cfg.Algorithm, fmt.Sprint(j.cfg.Schedule), fmt.Sprint(j.cfg.Whole)})
	}
	rows, err := kept(o.Keep, "ccube-fig13", desc, len(jobs), o.Workers, o.Progress, func(i int) (CCubeTrainingRow, error) {
		j := jobs[i]
		row, err := ccubeTrainingRun(p, spec, j.wl, j.sys, j.cfg)
		if err != nil {
			err = fmt.Errorf("ccube %s on %s, %s: %w", j.wl, j.sys, j.cfg.Name, err)
		}
		return row, err
	})
	if err != nil {
		return nil, err
	}
	if compare.CCubeConfigs[0].Name != "B" {
		return nil, fmt.Errorf("ccube: the configurations start with %s, not the baseline B the gains are over", compare.CCubeConfigs[0].Name)
	}
	for i := range rows {
		b := rows[i-i%len(compare.CCubeConfigs)] // the same workload and system's B, the first configuration
		rows[i].Gain = float64(b.Cycles)/float64(rows[i].Cycles) - 1
	}
	return rows, nil
}

// ccubeTrainingRun trains workload wl on the machine spec on system sys
// under configuration cfg, on platform p: one row, its gain unset.
func ccubeTrainingRun(p platform.Platform, spec *topology.Spec, wl, sys string, cfg compare.CCubeConfig) (CCubeTrainingRow, error) {
	opts, err := compare.PlatformOptions(p)
	if err != nil {
		return CCubeTrainingRow{}, err
	}
	if opts.Systems, err = compare.PlatformSystems([]string{sys}, p); err != nil {
		return CCubeTrainingRow{}, err
	}
	if opts.Workload, err = compare.PlatformWorkload(p, wl); err != nil {
		return CCubeTrainingRow{}, err
	}
	opts.Machine, opts.Workers, opts.Iterations, opts.KeepMetrics = spec, 1, 3, true
	cfg.Apply(&opts)
	rep, err := compare.Run(opts)
	if err != nil {
		return CCubeTrainingRow{}, err
	}
	return CCubeTrainingRow{Workload: wl, System: sys, Config: cfg.Name, Cycles: rep.Systems[0].Metrics.Iterations[1].IterationCycles, Whole: opts.WholeOneShot[sys]}, nil
}
