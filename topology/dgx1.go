package topology

import (
	"fmt"
	"strings"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
)

// DGX1Pairs are the NVLinks of NVIDIA's DGX-1 with eight V100 GPUs, the
// machine of the C-Cube paper ("Logical/Physical Topology-Aware Collective
// Communication in Deep Learning Training", Sections IV-A and V-A, Fig. 10):
// each pair of GPUs joined by NVLink and how many links join it. Every GPU has
// six; GPUs 0–3 and 4–7 are each fully connected, with the cross edges 0–4,
// 1–5, 2–6 and 3–7; the pairs 2–3 and 6–7 have two links, as the paper says,
// and 2–4 has none (its traffic detours through GPU 0). The counts are the
// DGX-1's own NVLink matrix (docs/topology.md, "dgx1").
var DGX1Pairs = []struct{ A, B, Links int }{
	{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2},
	{1, 2, 2}, {1, 3, 1}, {1, 5, 2},
	{2, 3, 2}, {2, 6, 1},
	{3, 7, 1},
	{4, 5, 1}, {4, 6, 1}, {4, 7, 2},
	{5, 6, 2}, {5, 7, 1},
	{6, 7, 2},
}

// dgx1 is the DGX-1 as a topology file: its NVLinks, each way, of class
// nvlink, bonded pairs as lanes (parallel links; a node's ports in the
// order of DGX1Pairs), routed on shortest paths as a topology file is,
// and one dimension, ring, the ring of NVLinks DGX1Ring.
// Class nvlink is Table V's inter-package link (25 GB/s per direction, an
// NVLink 2.0's, and its latency) [choice, docs/topology.md]: the
// platform's links.nvlink.* set it (unset, links.inter.*).
func dgx1() (*File, error) {
	var b strings.Builder
	b.WriteString("npus: 8\nlinks:\n")
	for _, p := range DGX1Pairs {
		fmt.Fprintf(&b, "  - {from: %d, to: %d, class: nvlink, lanes: %d}\n", p.A, p.B, p.Links)
		fmt.Fprintf(&b, "  - {from: %d, to: %d, class: nvlink, lanes: %d}\n", p.B, p.A, p.Links)
	}
	list := func(xs []int) string { return strings.Trim(strings.Join(strings.Fields(fmt.Sprint(xs)), ", "), "[]") }
	fmt.Fprintf(&b, "dims:\n  - {name: ring, ring: true, groups: [[%s]]}\n", list(DGX1Ring()))
	b.WriteString("trees:\n")
	for _, t := range treeDocs(DGX1Trees()) {
		fmt.Fprintf(&b, "  - [%s]\n", list(t))
	}
	return Load("dgx1", []byte(b.String()))
}

// DGX1Trees are the C-Cube paper's two trees on the DGX-1 ("Logical/Physical
// Topology-Aware Collective Communication in Deep Learning Training", Section
// IV-A, Fig. 10), each the parent of every GPU, -1 for its root. The paper
// draws them but its text gives only their constraints: GPU 2's edge to GPU 4
// detours through GPU 0, GPUs 0 and 1 are the only detour nodes, and the pairs
// 2–3 and 6–7 carry both trees, one link each. The first is NCCL's binary tree
// on GPU ids (0 → 4, 4 → {2, 6}, 2 → {1, 3}, 6 → {5, 7}); the second is the
// first with every GPU id XOR 1 (1 → 5, 5 → {3, 7}, 3 → {0, 2}, 7 → {4, 6}),
// so the interior GPUs of one are the leaves of the other, its edge 5–3
// detours through GPU 1, and 2–3 and 6–7 are used by both trees in opposite
// directions [choice, docs/topology.md "dgx1"]: NCCL's own second tree (the
// mirror, GPU r as 7 − r) would share 1–2 and 5–6 instead, which the paper's
// text rules out.
func DGX1Trees() [][]int {
	return [][]int{
		{-1, 2, 4, 2, 0, 6, 4, 6},
		{3, -1, 3, 5, 7, 1, 7, 5},
	}
}

func init() {
	Register("dgx1 (NVIDIA's DGX-1, 8 V100 GPUs joined by NVLink)", func(spec string) (*Spec, bool, error) {
		name := strings.ToLower(strings.TrimSpace(spec))
		if !strings.HasPrefix(name, "dgx") {
			return nil, false, nil
		}
		if name != "dgx1" {
			return nil, false, fmt.Errorf("--topo %q: the DGX machine acemu has is dgx1 (8 V100 GPUs joined by NVLink)", spec)
		}
		f, err := dgx1()
		if err != nil {
			return nil, false, err
		}
		m, err := dgx1Machine(f)
		if err != nil {
			return nil, false, err
		}
		return &Spec{Kind: "dgx1", Machine: m, Build: func(k *rtl.Kernel, l LinkSettings, _ bool) (*fabric.Network, error) {
			return f.Build(k, l)
		}}, true, nil
	})
}

// DGX1Ring is the ring of NVLinks collectives on the DGX-1 run on: the
// lexicographically first Hamiltonian cycle of DGX1Pairs from GPU 0 (a
// rule fixed before any run, docs/topology.md "dgx1"), each step one
// NVLink: 0, 1, 2, 3, 7, 5, 6, 4, back to 0.
func DGX1Ring() []int {
	adj := map[[2]int]bool{}
	for _, p := range DGX1Pairs {
		adj[[2]int{p.A, p.B}], adj[[2]int{p.B, p.A}] = true, true
	}
	const n = 8
	path, used := []int{0}, make([]bool, n)
	used[0] = true
	var walk func() bool
	walk = func() bool {
		cur := path[len(path)-1]
		if len(path) == n {
			return adj[[2]int{cur, 0}]
		}
		for next := 0; next < n; next++ {
			if !used[next] && adj[[2]int{cur, next}] {
				used[next] = true
				path = append(path, next)
				if walk() {
					return true
				}
				path, used[next] = path[:len(path)-1], false
			}
		}
		return false
	}
	walk()
	return path
}

// dgx1Machine is the DGX-1 as collectives see it: one dimension, ring,
// the NVLink ring DGX1Ring, each GPU reaching its next and previous GPU on
// the ring by the first NVLink to it (the dims its file declares). The
// ring's bonded pairs send on their first link; routed messages spread
// over both (docs/topology.md).
func dgx1Machine(f *File) (*machine.Machine, error) { return f.Machine() }
