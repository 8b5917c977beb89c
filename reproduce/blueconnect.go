package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
)

// An analogue of Fig. 3 of "BlueConnect: Novel Hierarchical All-Reduce on
// Multi-tired Network for Deep Learning" (Cho, Finkler, Kung; Section 4): the
// communication time of ResNet-50's all-reduce (about 100 MB of FP32
// gradients) under the flat ring ("Ring"), the two-level scheme ("GLOO", Eq.
// (4)) and BlueConnect ("BLC") on multi-tier switch fabrics growing to the
// paper's 192 GPUs (4 GPUs a node, 16 nodes a rack, 3 racks: switch:4x16x3),
// on the ideal endpoint (docs/validation.md, "BlueConnect").

// BlueConnectAlgorithms are the schemes compared, in the order shown.
var BlueConnectAlgorithms = []string{"ring", "two-level", "blueconnect"}

// Fig3 link bandwidths, from the paper (Sections 2.1 and 4):
// NVLink "around 32GB/s per lane" inside a node, one 100 Gbps InfiniBand
// port per node.
const (
	blcNodeGBps    = 32.0
	blcNetworkGBps = 12.5
)

// BlueConnectOptions chooses the sweep.
type BlueConnectOptions struct {
	// Fabrics are switch fabrics switch:P0xP1…, in the order shown.
	Fabrics []string
	// Size is the all-reduce's bytes per NPU.
	Size    int64
	Workers int
	// Progress, if set, is told how many of the sweep's runs have finished.
	Progress func(done, total int)
	// Keep is where its runs are kept.
	Keep Keep
}

// DefaultBlueConnect is the paper's sweep: 100 MB (ResNet-50's gradients in
// FP32) on 4 to 192 GPUs, the GPU counts doubling to 64 (one rack: 4, 8,
// 16, 32, 64; the paper names only 4, 8 and 192) then one, two and three
// racks.
func DefaultBlueConnect() BlueConnectOptions {
	return BlueConnectOptions{
		Fabrics: []string{"switch:4", "switch:4x2", "switch:4x4", "switch:4x8", "switch:4x16", "switch:4x16x2", "switch:4x16x3"},
		Size:    100_000_000,
	}
}

// QuickBlueConnect is the same sweep at 1 MB: about 19 CPU-seconds where
// the full run takes about 38 CPU-minutes (docs/validation.md,
// "BlueConnect").
func QuickBlueConnect() BlueConnectOptions {
	o := DefaultBlueConnect()
	o.Size = 1_000_000
	return o
}

// BlueConnectRow is one fabric: acemu's times and the α-β model's.
type BlueConnectRow struct {
	Fabric string `json:"fabric"`
	NPUs   int    `json:"npus"`
	// Bandwidths are the tiers' link bandwidths, GB/s, lowest first.
	Bandwidths []float64 `json:"tier_gbps"`
	// Ms are acemu's times, one per BlueConnectAlgorithms, ms.
	Ms []float64 `json:"ms"`
	// ModelMs are the α-β model's bandwidth terms (α = 0): Eqs. (3), (4)
	// and (6) with the paper's sharing rule (a tier-t uplink's bandwidth
	// divided among the NPUs under it), ms.
	ModelMs []float64 `json:"model_ms"`
}

// BlueConnectResult is the sweep.
type BlueConnectResult struct {
	Size int64            `json:"size_bytes"`
	Rows []BlueConnectRow `json:"rows"`
}

// BlueConnect runs the sweep.
func BlueConnect(o BlueConnectOptions) (*BlueConnectResult, error) {
	if len(o.Fabrics) == 0 || o.Size <= 0 {
		return nil, fmt.Errorf("blueconnect: need switch fabrics and a size")
	}
	var specs []Spec
	fabrics := make([]*topology.Switched, len(o.Fabrics))
	for i, f := range o.Fabrics {
		s, err := topology.ParseSwitched(f)
		if err != nil {
			return nil, fmt.Errorf("blueconnect compares schemes on the tiers of a switch fabric: %w", err)
		}
		fabrics[i] = s
		links := map[string]string{}
		for t, w := range BlueConnectBandwidths(s.Fanout) {
			links[fmt.Sprintf("links.tier%d.bandwidth", t)] = fmt.Sprintf("%gGB/s", w)
		}
		for _, a := range BlueConnectAlgorithms {
			specs = append(specs, Spec{Topo: f, Size: o.Size, Endpoint: Ideal, Algorithm: a, Links: links})
		}
	}
	pts, err := RunKept(specs, o.Workers, o.Progress, o.Keep)
	if err != nil {
		return nil, fmt.Errorf("blueconnect: %w", err)
	}
	res := &BlueConnectResult{Size: o.Size}
	for i, s := range fabrics {
		w := BlueConnectBandwidths(s.Fanout)
		row := BlueConnectRow{Fabric: o.Fabrics[i], NPUs: s.N(), Bandwidths: w}
		for j := range BlueConnectAlgorithms {
			row.Ms = append(row.Ms, float64(pts[i*len(BlueConnectAlgorithms)+j].Cycles)/rtl.ClockHz*1e3)
		}
		gbps := make([]float64, len(w))
		for t := range w {
			gbps[t] = w[t] * 1e9
		}
		n := float64(o.Size)
		row.ModelMs = []float64{ModelOneLevel(s.Fanout, n, gbps) * 1e3, ModelTwoLevel(s.Fanout, n, gbps) * 1e3, ModelBlueConnect(s.Fanout, n, gbps) * 1e3}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// BlueConnectBandwidths are the tiers' link bandwidths, GB/s [choice,
// docs/validation.md "BlueConnect"]: NVLink's 32 GB/s inside a node, 100
// Gbps (12.5 GB/s) for a node's uplink, and above that each tier's uplink
// the sum of the uplinks under it, p_{t−1}·w_{t−1}: the paper's Fig. 1
// rule, w2 "to ideally match the total uplink bandwidth from all the
// hanging nodes (e.g., fat-tree)" (Section 2.1; it gives no inter-rack
// figure for its cluster).
func BlueConnectBandwidths(fanout []int) []float64 {
	w := make([]float64, len(fanout))
	for t := range w {
		switch t {
		case 0:
			w[t] = blcNodeGBps
		case 1:
			w[t] = blcNetworkGBps
		default:
			w[t] = w[t-1] * float64(fanout[t-1])
		}
	}
	return w
}

// The α-β model of the paper's Section 2, bandwidth terms only (α = 0:
// the paper gives no α for its cluster), w in B/s per tier, n in bytes,
// times in seconds; ((p−1)/p)·n/w is Eq. (1)'s bandwidth term, the same
// for a ring and for recursive halving/doubling.
func abTerm(p int, n, w float64) float64 { return float64(p-1) / float64(p) * n / w }

// ModelOneLevel is Eq. (3) (with its missing /|P| restored): 2·((P−1)/P)·N
// over the slowest tier.
func ModelOneLevel(fanout []int, n float64, w []float64) float64 {
	return 2 * abTerm(product(fanout), n, slices.Min(w))
}

// ModelTwoLevel is Eq. (4): a reduce and a broadcast inside the lowest
// tier, each T_c + T_r, and an all-reduce among the masters over the
// slowest tier.
func ModelTwoLevel(fanout []int, n float64, w []float64) float64 {
	p0 := fanout[0]
	return 4*abTerm(p0, n, w[0]) + 2*abTerm(product(fanout)/p0, n, slices.Min(w))
}

// ModelBlueConnect is Eqs. (6)/(7), with the minimum over the tiers up to
// and including i: stage i's groups of p_i run on n/Π_{j<i}p_j at the
// slowest of w_j/Π_{k<j}p_k, j ≤ i.
func ModelBlueConnect(fanout []int, n float64, w []float64) float64 {
	t, under, bw := 0.0, 1, math.Inf(1)
	for i, p := range fanout {
		bw = math.Min(bw, w[i]/float64(under))
		t += 2 * abTerm(p, n/float64(under), bw)
		under *= p
	}
	return t
}

func product(xs []int) int {
	out := 1
	for _, x := range xs {
		out *= x
	}
	return out
}

// The paper's headline at 192 GPUs (Section 4, Fig. 3): communication
// overhead (iteration time less the single GPU's 163.0 ms) of BLC about
// 31.0 ms and GLOO 58.0 ms, and BLC's throughput 11 % above GLOO's and
// 45 % above Ring's. The paper's own figures do not reconcile exactly
// (with iteration = 163.0 ms + overhead, 31.0 vs 58.0 ms gives +13.9 %,
// not 11 %): docs/validation.md, "BlueConnect".
const (
	PaperSingleGPUMs   = 163.0
	PaperBLCOverheadMs = 31.0
	PaperGLOOMs        = 58.0
	PaperBLCvsGLOO     = 0.11
	PaperBLCvsRing     = 0.45
)

// ThroughputGain is how much more throughput a scheme of time fast ms
// gives than one of slow ms when each iteration is the single GPU's
// 163.0 ms of compute followed by the all-reduce (no overlap, as the
// paper's overhead is measured): (163 + slow)/(163 + fast) − 1.
func ThroughputGain(fast, slow float64) float64 {
	return (PaperSingleGPUMs+slow)/(PaperSingleGPUMs+fast) - 1
}

// Headline returns the sweep's row of the paper's 192 GPUs, if it ran.
func (r *BlueConnectResult) Headline() (BlueConnectRow, bool) {
	for _, row := range r.Rows {
		if row.NPUs == 192 && strings.HasPrefix(row.Fabric, "switch:4x16x3") {
			return row, true
		}
	}
	return BlueConnectRow{}, false
}
