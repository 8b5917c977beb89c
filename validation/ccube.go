package validation

import (
	"fmt"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/plots"
	"github.com/acemu/acemu/reproduce"
	"github.com/acemu/acemu/units"
)

// CCubePaper is the C-Cube paper.
var CCubePaper = Source{"ccube", "Logical/Physical Topology-Aware Collective Communication in Deep Learning Training"}

// ccubeFig12a is the C-Cube paper's Fig. 12(a) (Section V-B): its
// overlapped double tree (C1) against the conventional one (B) on the
// DGX-1, communication alone.
var ccubeFig12a = Figure{
	Name: "ccube-fig12a", Source: CCubePaper, Where: "Section V-B, Fig. 12(a)",
	Title:   "the overlapped double tree against the conventional one on the DGX-1",
	Quick:   true,
	Ignores: []string{"afi.", "collectives.", "baseline.", "training.", "ace.mem_bw", "npu.compute_speed"},
	Flags:   []string{FlagSize},
	Tabled:  true,
	Draws:   true,
	Run:     runCCubeFig12a,
}

func runCCubeFig12a(e Env) (*Outcome, error) {
	o := reproduce.DefaultCCube()
	o.ACE, o.Links, o.Workers, o.Progress, o.Keep = e.Platform.ACE, reproduce.LinkKeys(e.Platform), e.Workers, e.Progress, e.keep()
	if e.Quick {
		o.Sizes = []int64{1 << 20, 4 << 20}
	}
	if s := e.opts().Size; s != 0 {
		o.Sizes = []int64{s}
	}
	rows, err := reproduce.CCube(o)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	if out.Plots, err = drawInto(e, func(dir string) ([]string, error) { return plots.CCubeFig12a(rows, dir) }); err != nil {
		return nil, err
	}
	const where = "Section V-B"
	// "75% for 64MB data size" (one-shot, as the paper runs it).
	for _, p := range reproduce.CCubePaper {
		for _, r := range rows {
			if p.Size == 0 || r.Size != p.Size || r.Chunk != r.Size {
				continue
			}
			out.Values = append(out.Values, Value{What: fmt.Sprintf("C1's gain over B, %s, one-shot, %s", units.FormatSize(r.Size), r.Endpoint), Unit: "%", Where: where,
				Paper: Printed(fmt.Sprintf("%.0f", 100*p.Gain)), Acemu: 100 * r.Gain,
				Why: "acemu pipelines each tree in the platform's 8 KiB messages (4096 a tree at 64 MiB), the paper in the few tens of chunks of its Eq. (4), so its gain is nearer its model's limit of 2× (docs/validation.md, \"C-Cube\")"})
		}
	}
	// C1 beats B, one-shot, at every size, and its gain grows with the
	// size ("75% for 64MB data size and up to 80% for larger data size").
	prev := map[reproduce.Endpoint]reproduce.CCubeRow{}
	for _, r := range rows {
		if r.Chunk != r.Size {
			continue
		}
		out.Findings = append(out.Findings, Finding{Claim: fmt.Sprintf("C1 is faster than B, one-shot (%s, %s)", units.FormatSize(r.Size), r.Endpoint), Where: where,
			Holds: r.C1 < r.B, Measured: fmt.Sprintf("B %d, C1 %d cycles (%+.1f %%)", r.B, r.C1, 100*r.Gain)})
		if p, ok := prev[r.Endpoint]; ok {
			out.Findings = append(out.Findings, Finding{Claim: fmt.Sprintf("C1's gain grows with the size, one-shot (%s → %s, %s)", units.FormatSize(p.Size), units.FormatSize(r.Size), r.Endpoint), Where: where,
				Holds: r.Gain > p.Gain, Measured: fmt.Sprintf("%+.1f %% → %+.1f %%", 100*p.Gain, 100*r.Gain)})
		}
		prev[r.Endpoint] = r
	}
	if out.Table, err = ccubeFig12aTable(rows); err != nil {
		return nil, err
	}
	return out, nil
}

// ccubeFig12aTable is the comparison's table: B and C1 per size,
// endpoint and chunk, the gain beside the paper's model's.
func ccubeFig12aTable(rows []reproduce.CCubeRow) (*Table, error) {
	t := &Table{Doc: rows, Header: []string{"size", "endpoint", "chunk", "B µs", "C1 µs", "C1 gain", "model gain"}}
	for _, x := range rows {
		model := "-"
		if x.Model > 0 {
			model = signed(100*x.Model, 1) + " %"
		}
		chunk := units.SizeLabel(x.Chunk, " ")
		if x.Chunk == x.Size {
			chunk = "one-shot"
		}
		t.Rows = append(t.Rows, []string{units.SizeLabel(x.Size, " "), string(x.Endpoint), chunk, microsText(x.B), microsText(x.C1), signed(100*x.Gain, 1) + " %", model})
	}
	for _, p := range reproduce.CCubePaper {
		t.Notes = append(t.Notes, fmt.Sprintf("paper (Fig. 12(a), measured on a DGX-1): C1 over B %s: %+.0f %%", p.What, 100*p.Gain))
	}
	depth, err := reproduce.DGX1TreeDepth()
	if err != nil {
		return nil, err
	}
	t.Notes = append(t.Notes,
		"machine: dgx1 with the C-Cube paper's two trees and their detours (docs/topology.md); B = double-tree, C1 = double-tree-overlapped",
		"one-shot: the all-reduce as one chunk, pipelined through each tree in 8 KiB pieces (the paper's scheme); 64 KiB: the platform's chunks, many in flight at once, which keeps the links busy both ways even for B",
		fmt.Sprintf("model gain: the paper's Eqs. (5) and (7) as steps, 2(D+K-1) against 2D+K-1, at acemu's depth D = %d hops and K pieces a tree; it tends to +100 %% as K grows, and acemu's K is thousands of 8 KiB pieces where the paper's is a few tens (its Eq. (4)); why acemu's gain is above the paper's: docs/validation.md, \"C-Cube\"", depth))
	return t, nil
}

// ccubeFig13 is the C-Cube paper's Fig. 13 (Section V-B): training on the
// DGX-1 under its configurations, each beside B. Every GPU is simulated
// (about eight CPU-minutes), so it has no quick subset.
var ccubeFig13 = Figure{
	Name: "ccube-fig13", Source: CCubePaper, Where: "Section V-B, Fig. 13",
	Title:   "training on the DGX-1 under B, C1, C2, CC and R",
	Ignores: []string{"collectives."}, // each configuration sets the all-reduce's algorithm
	Flags:   []string{FlagWorkloads, FlagSystems},
	Tabled:  true,
	Draws:   true,
	Run:     runCCubeFig13,
}

func runCCubeFig13(e Env) (*Outcome, error) {
	p := e.Platform
	op := e.opts()
	rows, err := reproduce.CCubeTraining(reproduce.CCubeTrainingOptions{Workers: e.Workers, Platform: &p, Workloads: op.Workloads, Systems: op.Systems, Progress: e.Progress, Keep: e.keep()})
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	if out.Plots, err = drawInto(e, func(dir string) ([]string, error) { return plots.CCubeFig13(rows, dir) }); err != nil {
		return nil, err
	}
	const where = "Section V-B"
	byConfig := map[[3]string]reproduce.CCubeTrainingRow{}
	for _, r := range rows {
		byConfig[[3]string{r.Workload, r.System, r.Config}] = r
	}
	// "C1 provides 10% performance improvement on average … CC …
	// approximately 32% improvement on average": the paper's means over
	// its three networks, batches and bandwidths, beside acemu's runs.
	for _, pp := range reproduce.CCubeTrainingPaper {
		for _, r := range rows {
			if r.Config == pp.Config {
				// C1's "10%" is printed, CC's "approximately 32%".
				text := fmt.Sprintf("%.0f", 100*pp.Mean)
				if pp.Config == "CC" {
					text = "≈ " + text
				}
				why := "acemu's default regime has one image per GPU, where the all-reduce outlasts the forward pass; the paper's GPUs train larger batches (docs/validation.md, \"Training: the C-Cube paper's Fig. 13\")"
				if r.System == "ace" {
					why = "ACE runs the trees in its own 64 KiB chunks, many in flight, so its B already overlaps broadcast with reduction: C1 adds under 1 % and CC little more than gradient queuing's gain (docs/validation.md, \"Training: the C-Cube paper's Fig. 13\")"
				}
				out.Values = append(out.Values, Value{What: fmt.Sprintf("%s's throughput over B, %s, %s (the paper: its mean)", r.Config, r.Workload, r.System), Unit: "%", Where: where,
					Paper: Printed(text), Acemu: 100 * r.Gain, Why: why})
			}
		}
	}
	for _, r := range rows {
		if r.Config != "B" {
			continue
		}
		of := func(config string) reproduce.CCubeTrainingRow {
			return byConfig[[3]string{r.Workload, r.System, config}]
		}
		c1, cc, ring := of("C1").Gain, of("CC").Gain, of("R").Gain
		out.Findings = append(out.Findings, Finding{Claim: fmt.Sprintf("CC gains more than C1, and C1 more than nothing, over B (%s, %s)", r.Workload, r.System), Where: where,
			Holds: cc > c1 && c1 > 0, Measured: fmt.Sprintf("C1 %+.1f %%, CC %+.1f %%", 100*c1, 100*cc)})
		// "R shows better performance than C1 (up to 27%) … except for
		// small batch size for ZFNet, CC exceeds R … up to 31%".
		out.Findings = append(out.Findings,
			Finding{Claim: fmt.Sprintf("R is ahead of C1 (%s, %s; the paper: by up to 27 %%)", r.Workload, r.System), Where: where,
				Holds: ring > c1, Measured: fmt.Sprintf("over B: C1 %+.1f %%, R %+.1f %%; R's throughput over C1's %+.1f %%", 100*c1, 100*ring, 100*(float64(of("C1").Cycles)/float64(of("R").Cycles)-1)),
				Known: "acemu's ring on the DGX-1 is one NVLink ring both ways, 8 of the 24 NVLinks (NCCL's several rings are not modelled), against the two trees' 16, where the paper's NCCL rings use all six NVLinks of each GPU (docs/validation.md, \"Training: the C-Cube paper's Fig. 13\")"},
			Finding{Claim: fmt.Sprintf("CC is ahead of R (%s, %s; the paper: by up to 31 %%, except ZFNet's small batch)", r.Workload, r.System), Where: where,
				Holds: cc > ring, Measured: fmt.Sprintf("over B: R %+.1f %%, CC %+.1f %%; CC's throughput over R's %+.1f %%", 100*ring, 100*cc, 100*(float64(of("R").Cycles)/float64(of("CC").Cycles)-1))})
	}
	out.Table = ccubeFig13Table(rows, p.ChunkBytes)
	return out, nil
}

// ccubeFig13Table is the training comparison's table: one iteration per
// workload, system and configuration, each beside B (a one-shot not run
// as one chunk runs in the platform's chunks, of chunk bytes).
func ccubeFig13Table(rows []reproduce.CCubeTrainingRow, chunk int64) *Table {
	t := &Table{Doc: rows, Header: []string{"workload", "system", "config", "iteration µs", "gain over B", "one-shot as"}}
	for _, x := range rows {
		as := units.SizeLabel(chunk, " ") + " chunks"
		if x.Whole {
			as = "one chunk"
		}
		t.Rows = append(t.Rows, []string{x.Workload, x.System, x.Config, microsText(x.Cycles), signed(100*x.Gain, 1) + " %", as})
	}
	for _, c := range compare.CCubeConfigs {
		t.Notes = append(t.Notes, fmt.Sprintf("%s: %s (--set collectives.allreduce=%s, --schedule %s)", c.Name, c.What, c.Algorithm, c.Schedule))
	}
	t.Notes = append(t.Notes,
		"paper (Fig. 13, measured on a DGX-1, ZFNet, VGG-16 and ResNet-50): C1 over B +10 % on average, up to +20 %; C2 slightly above C1; CC about +32 % on average, up to +61 %; R above C1 by up to 27 %, CC above R by up to 31 %",
		"one iteration in the steady state (the second of three), in the platform's compute regime (docs/workloads.md: by default one image per GPU, the ACE paper's, where communication outweighs compute); why acemu differs: docs/validation.md, \"C-Cube\"")
	return t
}
